import type { ToolCall } from "../../protocol/types.js";
import { messageContent, readConversation } from "../../semconv/messages.js";
import type { JsonValue } from "../../spans/json-value.js";
import { type CallResult, callLine, isObject, type Message, toolCall } from "../kit/model-call.js";
import type { CallsTable, Endpoint, ReplyTable, RequestTable } from "./endpoints.js";
import { first, pick, strings } from "./paths.js";

/** Reads request and reply bodies with an endpoint's tables (see `endpoints.ts`). Nothing here throws on odd values. */

/** System text: a string, text parts, or Gemini's `{parts}`. */
function systemText(value: unknown): string {
  const content = isObject(value) && Array.isArray(value.parts) ? value.parts : value;
  return messageContent(content as JsonValue);
}

/** A request body's input as chat messages. */
export function requestInput(table: RequestTable, body: unknown): Message[] {
  const out: Message[] = [];
  const system = table.system === undefined ? undefined : first(body, [table.system]);
  if (system !== undefined) {
    const text = systemText(system);
    if (text) out.push({ role: "system", content: text });
  }
  const messages = table.messages === undefined ? undefined : first(body, [table.messages]);
  if (messages !== undefined) {
    // Gemini calls the assistant "model".
    for (const m of readConversation(messages as JsonValue)?.messages ?? []) out.push(m.role === "model" ? { ...m, role: "assistant" } : m);
  }
  const texts = strings(body, table.text);
  if (texts.length > 0) out.push({ role: "user", content: texts.join("\n") });
  return out;
}

/** The model a request names: in its body, else in its path. */
export function requestModel(endpoint: Endpoint, body: unknown, path: string): string | undefined {
  const named = endpoint.request.model === undefined ? undefined : first(body, [endpoint.request.model]);
  if (typeof named === "string" && named) return named;
  const inPath = endpoint.modelInPath?.exec(path)?.[1];
  return inPath ? decodeURIComponent(inPath) : undefined;
}

/** The tool calls `tables` find in `value`. */
export function callsIn(value: unknown, tables: readonly CallsTable[] | undefined): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const t of tables ?? []) {
    for (const item of pick(value, t.at)) {
      const name = t.name === undefined ? undefined : first(item, [t.name]);
      if (typeof name === "string") calls.push(toolCall(name, first(item, [t.args])));
    }
  }
  return calls;
}

/** A call's output: its text, else its tool calls as lines. */
export function outputOf(text: string, calls: readonly ToolCall[]): string {
  if (text || calls.length === 0) return text;
  return calls.map((c) => callLine(c.name, c.inputParameters)).join("\n");
}

/** What a JSON reply says, read with `table`. */
export function replyResult(table: ReplyTable, reply: unknown): CallResult {
  const toolCalls = callsIn(reply, table.calls);
  const text = table.count ? `[${pick(reply, table.count.at).length} ${table.count.noun}]` : strings(reply, table.text).join("");
  return {
    output: outputOf(text, toolCalls),
    model: first(reply, table.model),
    inputTokens: first(reply, table.inputTokens),
    outputTokens: first(reply, table.outputTokens),
    toolCalls,
    metadata: {},
  };
}
