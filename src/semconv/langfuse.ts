import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { outputText, readConversation } from "./messages.js";
import type { FinishedSpan } from "./types.js";
import { json } from "./values.js";

/**
 * Langfuse's own attributes, which some instrumentations write beside their GenAI ones
 * (TanStack AI's `otelMiddleware` mirrors every content on them, and gives its root `chat`
 * span no other): where a span's input and output are found when its convention read none.
 * The side → the attributes, first present wins.
 */
const keys = {
  input: ["langfuse.observation.input", "langfuse.trace.input"],
  output: ["langfuse.observation.output", "langfuse.trace.output"],
} as const;

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function first(span: FinishedSpan, side: "input" | "output"): JsonValue | undefined {
  for (const key of keys[side]) {
    const v = json(span.attributes[key]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** A list of one tool message (`[{role: "tool", content}]`) as its content, JSON text parsed. */
function toolContent(v: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(v) || v.length !== 1 || !isObj(v[0]) || v[0].role !== "tool") return v;
  const content = v[0].content;
  return typeof content === "string" ? json(content) : content;
}

/** A span's input from Langfuse's attributes: a tool's arguments, else the value (a message list stays one). */
export function langfuseInput(span: FinishedSpan, type: SpanType): JsonValue | undefined {
  const v = first(span, "input");
  return type === "tool" ? toolContent(v) : v;
}

/** A span's output from Langfuse's attributes: a tool's result, a message list's text, else the value. */
export function langfuseOutput(span: FinishedSpan, type: SpanType): JsonValue | undefined {
  const v = first(span, "output");
  if (type === "tool") return toolContent(v);
  return Array.isArray(v) ? (outputText(readConversation(v)) ?? v) : v;
}
