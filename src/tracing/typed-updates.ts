import { activeRuntime } from "../runtime/configure.js";
import { warnFieldOnce } from "../spans/field-warnings.js";
import type { AgentSpanFields, CommonSpanFields, LlmSpanFields, LlmSpanOptions, RetrieverSpanFields, ToolSpanFields } from "../spans/fields.js";
import type { SpanType } from "../protocol/types.js";
import { getSpanData } from "../spans/span-data.js";
import { current, updateSpanOf } from "./update.js";

/** What every typed update may set beside its type's fields. */
interface CommonUpdate extends CommonSpanFields {
  /** Replaces the captured input. */
  input?: unknown;
  /** Replaces the captured output; the function's return value no longer overwrites it. */
  output?: unknown;
}

/** What {@link updateLlmSpan} sets: the llm fields, the prompt, and the common ones. */
export interface LlmSpanUpdate extends CommonUpdate, LlmSpanFields, LlmSpanOptions {}
/** What {@link updateRetrieverSpan} sets. */
export interface RetrieverSpanUpdate extends CommonUpdate, RetrieverSpanFields {}
/** What {@link updateAgentSpan} sets. */
export interface AgentSpanUpdate extends CommonUpdate, AgentSpanFields {}
/** What {@link updateToolSpan} sets. */
export interface ToolSpanUpdate extends CommonUpdate, ToolSpanFields {}

function updateTyped(type: SpanType, fn: string, fields: object): void {
  const cur = current();
  if (!cur) {
    activeRuntime()?.logger.debug(`${fn} outside an observed span: ignored`);
    return;
  }
  const actual = getSpanData(cur.span)?.type;
  if (actual !== type) {
    warnFieldOnce(cur.rt.logger, `${fn}:${actual ?? "unknown"}`, `${fn} called in a ${actual ?? "foreign"} span, not a ${type} span: ignored`);
    return;
  }
  updateSpanOf(cur.rt, cur.span, fields, fn);
}

/**
 * Sets fields of the current span when it is an llm span (model, token counts, costs, prompt,
 * ...); in a span of another type it does nothing but warn once. Never throws.
 *
 * @example
 * updateLlmSpan({ model: "gpt-4o", inputTokenCount: 12, outputTokenCount: 40 });
 */
export function updateLlmSpan(fields: LlmSpanUpdate): void {
  updateTyped("llm", "updateLlmSpan", fields);
}

/** Sets fields of the current span when it is a retriever span (embedder, topK, chunkSize); else warns once. Never throws. */
export function updateRetrieverSpan(fields: RetrieverSpanUpdate): void {
  updateTyped("retriever", "updateRetrieverSpan", fields);
}

/** Sets fields of the current span when it is an agent span (availableTools, agentHandoffs); else warns once. Never throws. */
export function updateAgentSpan(fields: AgentSpanUpdate): void {
  updateTyped("agent", "updateAgentSpan", fields);
}

/** Sets fields of the current span when it is a tool span (description); else warns once. Never throws. */
export function updateToolSpan(fields: ToolSpanUpdate): void {
  updateTyped("tool", "updateToolSpan", fields);
}
