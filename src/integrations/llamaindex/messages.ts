import type { ToolCall } from "../../protocol/types.js";
import { messageText } from "../../spans/message-text.js";
import { callLine, isObject, toolCall } from "../kit/model-call.js";

/**
 * LlamaIndex chat messages and replies as our llm spans carry them. A LlamaIndex `ChatMessage`
 * is `{role, content, options?}`: an assistant's tool calls are in `options.toolCall`
 * (`[{id, name, input}]`), a tool result in `options.toolResult` (`{id, result, isError}`).
 */

/** A message as our llm spans carry it: a role, plain text, and the tool-call links. */
export interface ReadableMessage {
  role: string;
  content: string;
  /** An assistant message's tool calls; the wire folds them into `content` lines. */
  tool_calls?: { id?: string; name: string; args?: unknown }[];
  /** A tool message: the id of the call it answers. */
  tool_call_id?: string;
}

/** Messages read at most per call (a longer history keeps its last ones). */
const MAX_MESSAGES = 500;

/** A LlamaIndex `ToolCall` (`{id, name, input}`) as read from a message or an event. */
export interface LlamaToolCall {
  id?: string;
  name: string;
  input?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** Reads a property that may be a throwing getter: undefined then. */
export function field(obj: unknown, key: string): unknown {
  if (obj === null || (typeof obj !== "object" && typeof obj !== "function")) return undefined;
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A tool call's input as an object or value (LlamaIndex passes a JSON string while streaming). */
function parsedInput(input: unknown): unknown {
  if (typeof input !== "string") return input;
  try {
    return input === "" ? undefined : JSON.parse(input);
  } catch {
    return input;
  }
}

/** The tool calls of a LlamaIndex `ToolCall` list (`options.toolCall`, or one event's `toolCall`). */
export function toolCallsOf(value: unknown): LlamaToolCall[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter(isObject).map((c) => ({ id: str(c.id), name: str(c.name) ?? "tool", input: parsedInput(c.input) }));
}

/** One LlamaIndex `ChatMessage` as a readable message. */
export function readMessage(m: unknown): ReadableMessage | undefined {
  if (!isObject(m)) return undefined;
  const options = isObject(m.options) ? m.options : {};
  const role = str(m.role) ?? "user";
  if (isObject(options.toolResult)) {
    const id = str(options.toolResult.id);
    return { role: "tool", content: messageText(m.content) || messageText(options.toolResult.result), ...(id ? { tool_call_id: id } : {}) };
  }
  const calls = toolCallsOf(options.toolCall);
  const message: ReadableMessage = { role: role === "memory" || role === "developer" ? "system" : role, content: messageText(m.content) };
  if (calls.length > 0) message.tool_calls = calls.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, args: c.input }));
  return message;
}

/** A call's messages (`llm-start`'s `messages`), the last {@link MAX_MESSAGES} of them. */
export function readMessages(messages: unknown): ReadableMessage[] {
  if (!Array.isArray(messages)) return [];
  return messages
    .slice(-MAX_MESSAGES)
    .map(readMessage)
    .filter((m): m is ReadableMessage => m !== undefined);
}

/** What an llm span ends with, read from `llm-end`'s `response` (a `ChatResponse`). */
export interface ReadReply {
  /** The reply's text, with one line per tool call (`getOrder({"orderId":"A-1001"})`). */
  output: string;
  toolsCalled: ToolCall[];
  /** The calls with their ids, as the span's output names them. */
  calls: LlamaToolCall[];
  /** The model the reply names (the provider's raw reply), if any. */
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
}

/** Where each provider's raw reply reports the model and the token usage (OpenAI, Anthropic, Gemini...). */
const usageKeys: readonly { input: string; output: string }[] = [
  { input: "prompt_tokens", output: "completion_tokens" },
  { input: "input_tokens", output: "output_tokens" },
  { input: "promptTokenCount", output: "candidatesTokenCount" },
  { input: "prompt_eval_count", output: "eval_count" },
];

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The model and usage of a raw reply; a streamed reply's raw is its chunks (each `{raw}`), the last that reports them wins. */
function rawFacts(raw: unknown): { model?: string; inputTokens?: number; outputTokens?: number } {
  const replies = Array.isArray(raw) ? raw.map((chunk) => field(chunk, "raw") ?? chunk) : [raw];
  const facts: { model?: string; inputTokens?: number; outputTokens?: number } = {};
  for (const reply of replies) {
    if (!isObject(reply)) continue;
    facts.model = str(reply.model) ?? str(reply.modelVersion) ?? facts.model;
    const usage = reply.usage ?? reply.usageMetadata ?? reply;
    if (!isObject(usage)) continue;
    for (const keys of usageKeys) {
      const input = count(usage[keys.input]);
      const output = count(usage[keys.output]);
      if (input === undefined && output === undefined) continue;
      facts.inputTokens = input ?? facts.inputTokens;
      facts.outputTokens = output ?? facts.outputTokens;
      break;
    }
  }
  return facts;
}

/** Reads a `ChatResponse` (`{message, raw}`) or a `CompletionResponse` (`{text, raw}`). */
export function readReply(response: unknown): ReadReply {
  const message = field(response, "message");
  const calls = toolCallsOf(field(field(message, "options"), "toolCall"));
  const text = message === undefined ? messageText(field(response, "text")) : messageText(field(message, "content"));
  const output = [text, ...calls.map((c) => callLine(c.name, c.input))].filter(Boolean).join("\n");
  return { output, calls, toolsCalled: calls.map((c) => toolCall(c.name, c.input)), ...rawFacts(field(response, "raw")) };
}
