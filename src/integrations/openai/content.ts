import { readConversation } from "../../semconv/messages.js";
import type { FoundToolCall, Message } from "../../semconv/types.js";
import type { JsonValue } from "../../spans/json-value.js";
import { messageText } from "../../spans/message-text.js";
import type { CallResult, Usage } from "./stream.js";

/**
 * What an OpenAI call reads as, for each endpoint: its request as chat messages, and its parsed
 * response as a call's result (a stream's chunks are read in `stream.ts`).
 */

/** The three endpoints that reach a model; every helper of the SDK goes through their `create`. */
export type Api = "chat" | "responses" | "embeddings";

/** Chat messages as the service reads them: tool calls and tool results included. */
export function chatInput(params: Record<string, unknown>): Message[] {
  return readConversation((Array.isArray(params.messages) ? params.messages : []) as JsonValue)?.messages ?? [];
}

/** A Responses request: `instructions` as the system message, then `input` (text or items; calls and results linked by their `call_id`). */
export function responsesInput(params: Record<string, unknown>): Message[] {
  const out: Message[] = [];
  if (typeof params.instructions === "string") out.push({ role: "system", content: params.instructions });
  const input = params.input;
  if (typeof input === "string") out.push({ role: "user", content: input });
  else if (Array.isArray(input)) out.push(...(readConversation(input as JsonValue)?.messages ?? []));
  return out;
}

export function embeddingInput(params: Record<string, unknown>): Message[] {
  const input = params.input;
  const texts = Array.isArray(input) ? input : [input];
  return [{ role: "user", content: texts.map((t) => (typeof t === "string" ? t : messageText(t))).join("\n") }];
}

/** What a parsed response says: text, tool calls, model and usage, for each endpoint. */
export function readResult(api: Api, value: unknown): CallResult {
  const r = (value ?? {}) as Record<string, unknown>;
  const model = r.model;
  const usage = r.usage as Usage | undefined;
  if (api === "embeddings") {
    const data = Array.isArray(r.data) ? r.data : [];
    return { output: `[${data.length} embedding(s)]`, model, usage, toolCalls: [] };
  }
  if (api === "chat") {
    const message = (r.choices as { message?: Record<string, unknown> }[] | undefined)?.[0]?.message;
    const read = readConversation([{ role: "assistant", content: (message?.content ?? "") as JsonValue, tool_calls: (message?.tool_calls ?? []) as JsonValue }]);
    return { output: read?.messages[0]?.content ?? "", model, usage, toolCalls: read?.toolCalls ?? [] };
  }
  const items = (Array.isArray(r.output) ? r.output : []) as Record<string, unknown>[];
  const toolCalls: FoundToolCall[] = [];
  const parts: string[] = [];
  for (const item of items) {
    if (item.type === "function_call") {
      const read = readConversation([{ role: "assistant", content: [{ type: "function_call", name: item.name as JsonValue, arguments: item.arguments as JsonValue }] }]);
      toolCalls.push(...(read?.toolCalls ?? []));
      parts.push(read?.messages[0]?.content ?? "");
    } else if (Array.isArray(item.content)) {
      for (const c of item.content as Record<string, unknown>[]) if (typeof c.text === "string") parts.push(c.text);
    }
  }
  const text = typeof r.output_text === "string" && r.output_text ? r.output_text : parts.join("");
  return { output: text, model, usage, toolCalls };
}
