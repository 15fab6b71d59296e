import { type ReadableMessage, readConversation } from "../semconv/messages.js";
import type { JsonValue } from "../spans/json-value.js";
import { jsonText } from "./json-text.js";

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A system prompt given beside the messages: Anthropic's `system`, the Responses API's `instructions`. */
function systemOf(request: Obj): ReadableMessage[] {
  const system = request.system ?? request.instructions;
  if (system === undefined || system === null) return [];
  const text = typeof system === "string" ? system : (readConversation(system)?.messages.map((m) => m.content).join("\n") ?? jsonText(system));
  return [{ role: "system", content: text }];
}

/**
 * The messages of one call shape an app passes to a model: a messages list; a request object
 * with `messages` (OpenAI Chat, Anthropic with `system`), `input` (OpenAI Responses, with
 * `instructions`), `contents` (Gemini) or `prompt`; a prompt string. Undefined when it is none.
 */
function messagesOf(value: JsonValue): ReadableMessage[] | undefined {
  if (typeof value === "string") return [{ role: "user", content: value }];
  if (Array.isArray(value)) return readConversation(value)?.messages;
  if (!isObj(value)) return undefined;
  for (const key of ["messages", "input", "contents"] as const) {
    const list = value[key];
    if (typeof list === "string") return [...systemOf(value), { role: "user", content: list }];
    if (Array.isArray(list)) {
      const read = readConversation(list);
      if (read) return [...systemOf(value), ...read.messages];
    }
  }
  if (typeof value.prompt === "string") return [...systemOf(value), { role: "user", content: value.prompt }];
  return undefined;
}

function looksLikeMessages(value: JsonValue): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((m) => isObj(m) && typeof m.role === "string");
}

/**
 * An llm span's input as the service reads it, `[{role, content}]` in plain text (an assistant's
 * `tool_calls` and a tool result's `tool_call_id` kept, so that each result links to its call),
 * from what the observed function was called with (one argument: the value; several: the list of
 * them). The common call shapes are recognised; otherwise each argument becomes one user message.
 */
export function llmInputMessages(captured: JsonValue, argumentCount: number): ReadableMessage[] {
  if (argumentCount <= 1 || !Array.isArray(captured)) {
    const found = messagesOf(captured);
    if (found) return found;
    return [{ role: "user", content: jsonText(captured) }];
  }
  // Several arguments: the first one that is a call shape wins (e.g. `(messages, options)`).
  for (const arg of captured) {
    if (typeof arg === "string") continue;
    const found = looksLikeMessages(arg) || isObj(arg) ? messagesOf(arg) : undefined;
    if (found) return found;
  }
  return captured.map((arg) => ({ role: "user", content: jsonText(arg) }));
}
