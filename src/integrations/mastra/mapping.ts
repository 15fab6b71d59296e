import type { SpanType } from "../../protocol/types.js";
import { type CallResult, callLine, isObject, type Message, streamTimings, toolCall } from "../kit/model-call.js";
import { readConversation } from "../../semconv/messages.js";
import type { JsonValue } from "../../spans/json-value.js";
import type { MastraExportedSpan } from "./types.js";

/**
 * Mastra's span types as ours. `null`: the span is left out and its children hang under its
 * parent (a generation's steps, inferences and chunks are its llm span's inner workings: the
 * generation carries the model, the messages, the reply and the summed usage). Any type not
 * listed (workflow steps, processors, memory, RAG, ...) is a base span.
 */
export const MASTRA_SPAN_TYPES: Readonly<Record<string, SpanType | null>> = {
  agent_run: "agent",
  model_generation: "llm",
  model_step: null,
  model_inference: null,
  model_chunk: null,
  tool_call: "tool",
  mcp_tool_call: "tool",
  client_tool_call: "tool",
  provider_tool_call: "tool",
};

/** Our type for a Mastra span type (`null`: left out). */
export function spanTypeOf(mastraType: unknown): SpanType | null {
  const type = typeof mastraType === "string" && Object.hasOwn(MASTRA_SPAN_TYPES, mastraType) ? MASTRA_SPAN_TYPES[mastraType] : undefined;
  return type === undefined ? "base" : type;
}

/**
 * What one of our spans takes from a Mastra span: its name (Mastra's own, e.g. `agent run:
 * 'support'`, `tool: 'lookup_order'`, or the run's `tracingOptions.rootSpanName`), type fields, input, output and metadata. */
export interface MappedSpan {
  name: string;
  fields: Record<string, unknown>;
  input?: unknown;
  output?: unknown;
  metadata: Record<string, unknown>;
}

type Attributes = Record<string, unknown>;
const attributesOf = (s: MastraExportedSpan): Attributes => (isObject(s.attributes) ? (s.attributes as Attributes) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);
/** Mastra's metadata (run id, request-context keys) and the span type it had. */
const baseMetadata = (s: MastraExportedSpan): Record<string, unknown> => ({
  ...(isObject(s.metadata) ? s.metadata : {}),
  "mastra.spanType": s.type,
  "mastra.entity": str(s.entityName) ?? str(s.entityId),
});
/** `{text, ...}` results (an agent's, a generation's) read as their text. */
const textOf = (output: unknown): unknown => (isObject(output) && typeof output.text === "string" ? output.text : output);

/** How each of our types reads a Mastra span, as data: one reader per type. */
const READERS: { readonly [K in Exclude<SpanType, "llm">]: (s: MastraExportedSpan) => MappedSpan } = {
  agent: (s) => {
    const a = attributesOf(s);
    return { name: s.name, fields: { availableTools: a.availableTools }, input: s.input, output: textOf(s.output), metadata: { ...baseMetadata(s), instructions: a.instructions, maxSteps: a.maxSteps } };
  },
  tool: (s) => {
    const a = attributesOf(s);
    return { name: s.name, fields: { description: a.toolDescription }, input: s.input, output: s.output, metadata: { ...baseMetadata(s), toolCallId: a.toolCallId, toolType: a.toolType } };
  },
  base: (s) => ({ name: s.name, fields: {}, input: s.input, output: s.output, metadata: { ...attributesOf(s), ...baseMetadata(s) } }),
  retriever: (s) => READERS.base(s),
};

/** A Mastra span (of any type but llm) as one of ours. */
export function readSpan(type: Exclude<SpanType, "llm">, span: MastraExportedSpan): MappedSpan {
  return READERS[type](span);
}

const time = (d: unknown): number | undefined => {
  const ms = d instanceof Date ? d.getTime() : typeof d === "string" ? Date.parse(d) : undefined;
  return ms !== undefined && Number.isFinite(ms) ? ms : undefined;
};

/**
 * A generation (`model_generation`) as one llm call: the messages it was given, the reply with
 * its tool calls, the model that answered, the summed usage, and (from Mastra's
 * `completionStartTime`) the streaming timings.
 */
export function readGeneration(s: MastraExportedSpan): { name: string; input: Message[]; result: CallResult } {
  const a = attributesOf(s);
  const usage = isObject(a.usage) ? (a.usage as Attributes) : {};
  const input = readConversation(s.input as JsonValue)?.messages ?? [];
  const out = isObject(s.output) ? s.output : {};
  const calls = (Array.isArray(out.toolCalls) ? out.toolCalls : []).filter(isObject);
  const text = typeof out.text === "string" ? out.text : typeof s.output === "string" ? s.output : "";
  const lines = calls.map((c) => callLine(String(c.toolName ?? "tool"), c.args ?? c.input));
  const start = time(s.startTime);
  const end = time(s.endTime);
  const inputDetails = isObject(usage.inputDetails) ? usage.inputDetails : {};
  const outputDetails = isObject(usage.outputDetails) ? usage.outputDetails : {};
  return {
    name: s.name,
    input,
    result: {
      output: [text, ...lines].filter((l) => l).join("\n"),
      model: str(a.responseModel) ?? str(a.model),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      toolCalls: calls.map((c) => toolCall(c.toolName, c.args ?? c.input)),
      metadata: {
        ...baseMetadata(s),
        provider: a.provider,
        finishReason: a.finishReason,
        responseId: a.responseId,
        cacheReadInputTokens: inputDetails.cacheRead,
        cacheWriteInputTokens: inputDetails.cacheWrite,
        reasoningTokens: outputDetails.reasoning,
        ...(start !== undefined && end !== undefined ? streamTimings(start, time(a.completionStartTime), end, usage.outputTokens) : {}),
      },
    },
  };
}

/** Trace fields a Mastra root carries: its tags, and an agent's conversation as the thread. */
export function traceFieldsOf(s: MastraExportedSpan): Record<string, unknown> {
  const a = attributesOf(s);
  const metadata = isObject(s.metadata) ? s.metadata : {};
  const fields: Record<string, unknown> = {};
  if (Array.isArray(s.tags) && s.tags.length > 0) fields.tags = s.tags;
  if (str(a.conversationId)) fields.threadId = a.conversationId;
  if (str(metadata.resourceId)) fields.userId = metadata.resourceId;
  return fields;
}
