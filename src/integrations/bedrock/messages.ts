import type { ToolCall } from "../../protocol/types.js";
import type { ReadableMessage, ReadableToolCall } from "../../semconv/messages.js";
import type { JsonValue } from "../../spans/json-value.js";
import { messageText } from "../../spans/message-text.js";
import { callLine, isObject, toolCall } from "../kit/model-call.js";

/**
 * One part of a message, whatever body format it came in: text, a tool call with the id its
 * result will name, a tool result naming that id, or something shown by its kind (`[image]`).
 */
export type Part = { kind: "text"; text: string } | { kind: "call"; id?: string; name: string; input: unknown } | { kind: "result"; id?: string; text: string } | { kind: "other"; label: string };

/** A message as a list of parts, before it is made readable. */
export interface PartsMessage {
  role: string;
  parts: Part[];
}

/** A string id, or undefined. */
export const idOf = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** A tool call as the readable input keeps it: its id first, then name and arguments. */
function readableCall(part: Extract<Part, { kind: "call" }>): ReadableToolCall {
  const call = toolCall(part.name, part.input);
  const out: ReadableToolCall = part.id === undefined ? { name: call.name } : { id: part.id, name: call.name };
  if (call.inputParameters) out.arguments = call.inputParameters as { [key: string]: JsonValue };
  return out;
}

/** The text of parts: text as it is, calls as `name(arguments)` lines, other parts by their label. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .map((p) => (p.kind === "text" ? p.text : p.kind === "call" ? callLine(p.name, p.input) : p.kind === "result" ? p.text : p.label))
    .filter((s) => s !== "")
    .join("\n");
}

/**
 * Messages as llm spans carry them, as the OpenAI integration has them: `{role, content}` with an
 * assistant's `tool_calls` (`{id, name, arguments}`), and each tool result as a message of its
 * own, `{role: "tool", content, tool_call_id}`, so a result is linked by id to the call it answers.
 */
export function readableMessages(messages: readonly PartsMessage[]): ReadableMessage[] {
  const out: ReadableMessage[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.kind !== "result") continue;
      const tool: ReadableMessage = { role: "tool", content: p.text };
      if (p.id !== undefined) tool.tool_call_id = p.id;
      out.push(tool);
    }
    const rest = m.parts.filter((p) => p.kind !== "result");
    const hadResults = rest.length < m.parts.length;
    if (rest.length === 0 && hadResults) continue;
    const message: ReadableMessage = { role: m.role, content: partsText(rest) };
    const calls = rest.filter((p): p is Extract<Part, { kind: "call" }> => p.kind === "call");
    if (calls.length > 0) message.tool_calls = calls.map(readableCall);
    out.push(message);
  }
  return out;
}

/** The tool calls among parts, as `toolsCalled` has them, and their ids in the same order. */
export function callsOf(parts: readonly Part[]): { toolCalls: ToolCall[]; ids: string[] } {
  const calls = parts.filter((p): p is Extract<Part, { kind: "call" }> => p.kind === "call");
  return { toolCalls: calls.map((c) => toolCall(c.name, c.input)), ids: calls.map((c) => c.id ?? "") };
}

/** A value of a tool result or document as text: a string as it is, anything else as readable text. */
export const anyText = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : messageText(v));

/** A system prompt of text blocks (`[{text}]`) or a string, as one system message; none when empty. */
export function systemMessage(system: unknown): PartsMessage[] {
  if (typeof system === "string") return system ? [{ role: "system", parts: [{ kind: "text", text: system }] }] : [];
  if (!Array.isArray(system)) return [];
  const parts: Part[] = system.filter(isObject).flatMap((b): Part[] => (typeof b.text === "string" ? [{ kind: "text", text: b.text }] : []));
  return parts.length > 0 ? [{ role: "system", parts }] : [];
}
