import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { messageContent, readConversation, toolsCalled } from "./messages.js";
import type { Convention, FinishedSpan } from "./types.js";
import { json, str } from "./values.js";

const isAi = (span: FinishedSpan) => span.name.startsWith("ai.");

/**
 * Whether a span is the AI SDK's own: named `ai.*` (AI SDK 5 and 6, and `LegacyOpenTelemetry` of
 * `@ai-sdk/otel` on AI SDK 7), or carrying its `ai.operationId` without being a GenAI span. AI
 * SDK 7's `OpenTelemetry` spans are GenAI spans (`gen_ai.operation.name`) that may carry optional
 * `ai.*` attributes (usage details, provider metadata, embeddings): the GenAI convention reads them.
 */
function claims(span: FinishedSpan): boolean {
  if (isAi(span)) return true;
  const a = span.attributes;
  return a["ai.operationId"] !== undefined && a["gen_ai.operation.name"] === undefined;
}

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A tool result's output as the AI SDK (5+) wraps it, `{type, value}`, as what the tool gave: the
 * text of `text` and `error-text`, the JSON of `json` and `error-json`, the text parts of
 * `content` (media named by type), and a note for a denied execution. Anything else stays.
 */
function toolOutput(output: JsonValue | undefined): JsonValue | undefined {
  if (!isObj(output) || typeof output.type !== "string") return output;
  const value = output.value;
  switch (output.type) {
    case "text":
    case "error-text":
      return typeof value === "string" ? value : output;
    case "json":
    case "error-json":
      return value === undefined ? output : typeof value === "string" ? value : JSON.stringify(value);
    case "content":
      if (!Array.isArray(value)) return output;
      return value.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : isObj(p) && typeof p.mediaType === "string" ? `[${p.mediaType}]` : "")).join("");
    case "execution-denied":
      return typeof output.reason === "string" ? `[execution denied: ${output.reason}]` : "[execution denied]";
    default:
      return output;
  }
}

/** AI SDK messages with each `tool-result` part's output unwrapped ({@link toolOutput}); other values as they are. */
function withToolValues(messages: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m) => {
    if (!isObj(m) || !Array.isArray(m.content) || !m.content.some((p) => isObj(p) && p.type === "tool-result")) return m;
    return { ...m, content: m.content.map((p) => (isObj(p) && p.type === "tool-result" && p.output !== undefined ? { ...p, output: toolOutput(p.output) ?? null } : p)) };
  });
}

/** Span name → type: model calls are llm spans, tool calls tool spans, the rest base. */
function typeOf(name: string): SpanType {
  if (/^ai\.\w+\.do(Generate|Stream|Embed)$/.test(name)) return "llm";
  if (name === "ai.toolCall") return "tool";
  return "base";
}

/** The AI SDK's prompt object: its text when it is a plain prompt, else the last user message. */
function promptInput(v: JsonValue | undefined): JsonValue | undefined {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    if (typeof v.prompt === "string") return v.prompt;
    const messages = readConversation(withToolValues(v.messages ?? null))?.messages;
    const users = messages?.filter((m) => m.role === "user") ?? [];
    if (users.length > 0) return users[users.length - 1]!.content;
    if (typeof v.system === "string") return v.system;
  }
  return v;
}

/** Embedded values (`ai.value`, `ai.values`) as text. */
function embedded(span: FinishedSpan): JsonValue | undefined {
  const one = json(span.attributes["ai.value"]);
  if (one !== undefined) return typeof one === "string" ? one : messageContent(one);
  const many = span.attributes["ai.values"];
  if (Array.isArray(many)) return many.map((v) => (typeof v === "string" ? (json(v) ?? v) : String(v))).map((v) => (typeof v === "string" ? v : messageContent(v))).join("\n");
  return undefined;
}

/** What a call produced: text, an object (generateObject), tool calls, or embeddings. */
function result(span: FinishedSpan): JsonValue | undefined {
  const a = span.attributes;
  const text = str(a["ai.response.text"]);
  if (text !== undefined) return text;
  const object = str(a["ai.response.object"]);
  if (object !== undefined) return object;
  const calls = json(a["ai.response.toolCalls"]);
  if (calls !== undefined) return typeof calls === "string" ? calls : messageContent(Array.isArray(calls) ? calls.map((c) => (c && typeof c === "object" && !Array.isArray(c) ? { type: "tool-call", ...c } : c)) : calls);
  const embedding = a["ai.embedding"];
  if (typeof embedding === "string") return "[1 embedding]";
  const embeddings = a["ai.embeddings"];
  if (Array.isArray(embeddings)) return `[${embeddings.length} embedding(s)]`;
  return undefined;
}

/** The AI SDK's streaming calls and their model calls: they end without a finish reason when cut short. */
const streams: readonly { name: string; finished: readonly string[] }[] = [
  { name: "ai.streamText", finished: ["ai.response.finishReason"] },
  { name: "ai.streamText.doStream", finished: ["ai.response.finishReason"] },
  { name: "ai.streamObject", finished: ["ai.response.finishReason", "ai.response.object"] },
  { name: "ai.streamObject.doStream", finished: ["ai.response.finishReason", "ai.response.object"] },
];

/**
 * The error of a call the AI SDK (5, 6) ends with an OK status all the same: a stream whose
 * provider sent an error part (`finishReason` "error"; the SDK hands the error to `onError`,
 * not to the app's loop), and a stream that ended with no finish at all (aborted, or not read
 * to its end).
 */
function streamError(span: FinishedSpan): string | undefined {
  const a = span.attributes;
  const reason = a["ai.response.finishReason"];
  if (reason === "error") return "the model's stream ended with an error (finish reason: error)";
  const stream = streams.find((s) => s.name === span.name);
  if (stream && !stream.finished.some((key) => a[key] !== undefined)) return "stream cut short: ended with no finish (aborted, or not read to its end)";
  return undefined;
}

/**
 * The Vercel AI SDK's telemetry (5 and 6): `ai.generateText` / `streamText` / `generateObject` /
 * `streamObject` / `embed` / `embedMany` and their `.doGenerate` / `.doStream` / `.doEmbed`
 * model calls, `ai.toolCall`, with `ai.prompt*`, `ai.response.*`, `ai.usage.*`, `ai.model.*`.
 */
export const aiSdk: Convention = {
  name: "AI SDK",
  claims,
  type: (span) => typeOf(span.name),
  fields: [
    { field: "model", keys: ["ai.response.model", "ai.model.id", "gen_ai.response.model", "gen_ai.request.model"], as: "string", types: ["llm"] },
    { field: "provider", keys: ["ai.model.provider", "gen_ai.system"], as: "string", types: ["llm"] },
    { field: "inputTokenCount", keys: ["ai.usage.inputTokens", "ai.usage.promptTokens", "ai.usage.tokens", "gen_ai.usage.input_tokens"], as: "count", types: ["llm"] },
    { field: "outputTokenCount", keys: ["ai.usage.outputTokens", "ai.usage.completionTokens", "gen_ai.usage.output_tokens"], as: "count", types: ["llm"] },
  ],
  spanName(span, type) {
    const a = span.attributes;
    if (type === "tool") return str(a["ai.toolCall.name"]);
    const functionId = str(a["ai.telemetry.functionId"]);
    return functionId && type === "base" ? `${span.name} ${functionId}` : undefined;
  },
  input(span, type) {
    const a = span.attributes;
    if (type === "tool") return json(a["ai.toolCall.args"]) ?? json(a["ai.toolCall.input"]);
    if (type === "llm") return (readConversation(withToolValues(json(a["ai.prompt.messages"])))?.messages as unknown as JsonValue | undefined) ?? embedded(span);
    return promptInput(json(a["ai.prompt"])) ?? embedded(span);
  },
  output(span, type) {
    const a = span.attributes;
    if (type === "tool") return json(a["ai.toolCall.result"]) ?? json(a["ai.toolCall.output"]);
    return result(span);
  },
  error: streamError,
  extra(span, type) {
    if (type !== "llm") return undefined;
    const calls = json(span.attributes["ai.response.toolCalls"]);
    if (!Array.isArray(calls)) return undefined;
    const found = readConversation([{ role: "assistant", content: calls.map((c) => (c && typeof c === "object" && !Array.isArray(c) ? { type: "tool-call", ...c } : c)) }]);
    const listed = toolsCalled(found?.toolCalls ?? []);
    return listed ? { toolsCalled: listed } : undefined;
  },
};
