import type { Attributes, AttributeValue } from "@opentelemetry/api";
import type { SpanType } from "../tracing/fields.js";
import type { JsonValue } from "../tracing/serialize.js";
import { SPAN_TYPE_ATTRIBUTE } from "../tracing/span-data.js";
import { messageText } from "../tracing/message-text.js";
import { MAX_FOREIGN_JSON_CHARS, MAX_NAME_CHARS, truncateString } from "../tracing/string-limits.js";
import { checkField, spanFieldRules } from "../tracing/validate-fields.js";

const llmOperations = new Set(["chat", "generate_content", "text_completion"]);
const spanTypes = new Set<string>(["base", "llm", "retriever", "agent", "tool"]);

/**
 * Whether a span of another instrumentation belongs in our traces: it carries OpenTelemetry
 * GenAI attributes (`gen_ai.*`), Vercel AI SDK attributes (`ai.*`) or our span type. HTTP, DB
 * and other spans are left out.
 */
export function isLlmRelevant(name: string, attributes: Attributes): boolean {
  if (name.startsWith("ai.")) return true;
  for (const key of Object.keys(attributes)) {
    if (key.startsWith("gen_ai.") || key.startsWith("ai.") || key === SPAN_TYPE_ATTRIBUTE) return true;
  }
  return false;
}

/** The span type of a foreign span: declared, else inferred like the vendor's own OTel path. */
export function foreignSpanType(name: string, a: Attributes): SpanType {
  const declared = a[SPAN_TYPE_ATTRIBUTE];
  if (typeof declared === "string" && spanTypes.has(declared)) return declared as SpanType;
  const op = a["gen_ai.operation.name"];
  if (typeof op === "string" && llmOperations.has(op)) return "llm";
  if (/^ai\.\w+\.do(Generate|Stream)$/.test(name)) return "llm";
  if (name === "ai.toolCall" || a["gen_ai.tool.name"] !== undefined || op === "execute_tool") return "tool";
  return "base";
}

const str = (v: AttributeValue | undefined): string | undefined => (typeof v === "string" ? v : undefined);
const num = (...vs: (AttributeValue | undefined)[]): number | undefined => vs.find((v): v is number => typeof v === "number");

/** A JSON attribute parsed; text that is not JSON, or longer than MAX_FOREIGN_JSON_CHARS, stays text. */
function json(v: AttributeValue | undefined): JsonValue | undefined {
  if (typeof v !== "string") return undefined;
  if (v.length > MAX_FOREIGN_JSON_CHARS) return v;
  try {
    return JSON.parse(v) as JsonValue;
  } catch {
    return v;
  }
}

/** Messages from `ai.prompt.messages`, `gen_ai.input.messages` or legacy `gen_ai.prompt.N.*`. */
function inputMessages(a: Attributes): { role: string; content: string }[] | undefined {
  const list = json(a["ai.prompt.messages"]) ?? json(a["gen_ai.input.messages"]);
  if (Array.isArray(list)) {
    return list
      .filter((m): m is { [key: string]: JsonValue } => m !== null && typeof m === "object" && !Array.isArray(m))
      .map((m) => ({ role: String(m.role ?? "user"), content: messageText(m.content ?? m.parts) }));
  }
  const legacy: { role: string; content: string }[] = [];
  for (let i = 0; a[`gen_ai.prompt.${i}.content`] !== undefined || a[`gen_ai.prompt.${i}.role`] !== undefined; i++) {
    legacy.push({ role: str(a[`gen_ai.prompt.${i}.role`]) ?? "user", content: str(a[`gen_ai.prompt.${i}.content`]) ?? "" });
  }
  return legacy.length ? legacy : undefined;
}

function outputText(a: Attributes): string | undefined {
  const textOut = str(a["ai.response.text"]) ?? str(a["gen_ai.completion.0.content"]);
  if (textOut) return textOut;
  const toolCalls = str(a["ai.response.toolCalls"]);
  if (toolCalls) return toolCalls;
  const out = json(a["gen_ai.output.messages"]);
  if (Array.isArray(out)) return out.map((m) => (m && typeof m === "object" && !Array.isArray(m) ? messageText(m.content ?? m.parts) : "")).join("");
  return undefined;
}

/**
 * The fields of a foreign span, by type: model, provider and token counts of llm spans, input
 * and output, tool names and arguments, and the integration that produced it. The name is cut
 * at MAX_NAME_CHARS and the typed fields are checked like those of our own spans; input and
 * output are left to the caller to bound.
 */
export function foreignSpanFields(name: string, type: SpanType, a: Attributes): { name: string; fields: { [key: string]: JsonValue } } {
  const fields: { [key: string]: JsonValue } = {};
  const fromAiSdk = name.startsWith("ai.") || Object.keys(a).some((k) => k.startsWith("ai."));
  fields.integration = fromAiSdk ? "AI SDK" : "OpenTelemetry";
  const functionId = str(a["ai.telemetry.functionId"]);
  // Cut before joining: slicing a joined string would first copy it whole.
  let spanName = functionId && !name.includes(".do") ? `${truncateString(name, MAX_NAME_CHARS)} ${truncateString(functionId, MAX_NAME_CHARS)}` : name;
  if (type === "llm") {
    const model = str(a["gen_ai.response.model"]) ?? str(a["ai.response.model"]) ?? str(a["gen_ai.request.model"]) ?? str(a["ai.model.id"]);
    if (model) fields.model = model;
    const provider = str(a["gen_ai.system"]) ?? str(a["gen_ai.provider.name"]) ?? str(a["ai.model.provider"]);
    if (provider) fields.provider = provider;
    const inTokens = num(a["gen_ai.usage.input_tokens"], a["ai.usage.inputTokens"], a["ai.usage.promptTokens"]);
    const outTokens = num(a["gen_ai.usage.output_tokens"], a["ai.usage.outputTokens"], a["ai.usage.completionTokens"]);
    if (inTokens !== undefined) fields.inputTokenCount = inTokens;
    if (outTokens !== undefined) fields.outputTokenCount = outTokens;
    const input = inputMessages(a);
    if (input) fields.input = input;
    const output = outputText(a);
    if (output !== undefined) fields.output = output;
  } else if (type === "tool") {
    spanName = str(a["ai.toolCall.name"]) ?? str(a["gen_ai.tool.name"]) ?? name;
    const description = str(a["gen_ai.tool.description"]);
    if (description) fields.description = description;
    const args = json(a["ai.toolCall.args"]) ?? json(a["gen_ai.tool.call.arguments"]);
    if (args !== undefined) fields.input = args;
    const result = json(a["ai.toolCall.result"]) ?? json(a["gen_ai.tool.call.result"]);
    if (result !== undefined) fields.output = result;
  } else {
    const prompt = json(a["ai.prompt"]);
    // The AI SDK's prompt object: its text when it is a plain prompt, else the last user message.
    if (prompt && typeof prompt === "object" && !Array.isArray(prompt) && typeof prompt.prompt === "string") fields.input = prompt.prompt;
    else if (prompt && typeof prompt === "object" && !Array.isArray(prompt) && Array.isArray(prompt.messages)) {
      const users = prompt.messages.filter((m) => m && typeof m === "object" && !Array.isArray(m) && m.role === "user") as { [key: string]: JsonValue }[];
      fields.input = users.length ? messageText(users[users.length - 1]!.content) : prompt;
    } else if (prompt !== undefined) fields.input = prompt;
    const output = outputText(a);
    if (output !== undefined) fields.output = output;
  }
  // Model, provider, token counts and description by the same rules as our own spans: a NaN or
  // negative count, or a huge model string, must not get the trace rejected.
  for (const [key, value] of Object.entries(fields)) {
    if (key === "input" || key === "output" || !Object.hasOwn(spanFieldRules, key)) continue;
    const checked = checkField(spanFieldRules[key]!, value, key).value;
    if (checked === undefined) delete fields[key];
    else fields[key] = checked;
  }
  return { name: truncateString(spanName, MAX_NAME_CHARS), fields };
}
