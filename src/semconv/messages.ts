import type { AttributeValue } from "@opentelemetry/api";
import type { JsonValue } from "../spans/json-value.js";
import { toText } from "../spans/serialize.js";
import type { FoundToolCall, Message } from "./types.js";
import { json, subIndexed } from "./values.js";
import { readable } from "../spans/lc-values.js";

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const text = (v: JsonValue | undefined): string => (v === undefined || v === null ? "" : typeof v === "string" ? v : toText(v));

/** Messages plus the tool calls they carry. */
export interface Conversation {
  messages: Message[];
  toolCalls: FoundToolCall[];
}

/** A tool call as one line of text, so that a message of calls only still reads as something. */
function callLine(call: FoundToolCall): string {
  return `${call.name}(${call.inputParameters === undefined ? "" : toText(call.inputParameters)})`;
}

function args(v: JsonValue | undefined): Obj | undefined {
  const parsed = typeof v === "string" ? json(v) : v;
  return isObj(parsed) ? parsed : parsed === undefined || parsed === "" ? undefined : { value: parsed ?? null };
}

/**
 * One part of a message's content, whatever the convention: text (OpenAI `text`, GenAI
 * `content`), a tool call (GenAI `tool_call`, Anthropic `tool_use`, AI SDK `tool-call`) or a tool
 * result (GenAI `tool_call_response`, Anthropic `tool_result`, AI SDK `tool-result`).
 */
function readPart(part: JsonValue, calls: FoundToolCall[]): string {
  if (!isObj(part)) return text(part);
  const type = typeof part.type === "string" ? part.type : "text";
  if (type === "tool_call" || type === "tool_use" || type === "tool-call" || type === "function_call") {
    const call: FoundToolCall = { name: String(part.name ?? part.toolName ?? "tool") };
    const input = args(part.arguments ?? part.input ?? part.args);
    if (input) call.inputParameters = input;
    calls.push(call);
    return callLine(call);
  }
  if (type === "tool_call_response" || type === "tool_result" || type === "tool-result" || type === "function_call_output") {
    return messageContent(part.response ?? part.content ?? part.output ?? part.result ?? part.value);
  }
  if (typeof part.text === "string") return part.text;
  if (typeof part.content === "string") return part.content;
  return text(part);
}

/**
 * A content string as written: only a JSON list of typed parts (or one typed part) is read as
 * parts; any other text, JSON-looking or not (`"hello"`, `["a","b"]`, a JSON-mode answer), stays.
 */
export function contentFromString(text: string): string {
  const parsed = json(text);
  const typed = (p: JsonValue) => isObj(p) && typeof p.type === "string";
  if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(typed)) return messageContent(parsed);
  if (parsed !== undefined && typeof parsed !== "string" && typed(parsed)) return messageContent(parsed);
  return text;
}

/** The plain text of a message content: a string, or a list of parts. */
export function messageContent(content: JsonValue | undefined, calls: FoundToolCall[] = []): string {
  if (Array.isArray(content)) return content.map((p) => readPart(p, calls)).join("");
  if (isObj(content)) return readPart(content, calls);
  return text(content);
}

/** An OpenAI/LangChain `tool_calls` list: `{function: {name, arguments}}` or `{name, args}`. */
function readToolCalls(list: JsonValue | undefined): FoundToolCall[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObj).map((c) => {
    const fn = isObj(c.function) ? c.function : c;
    const call: FoundToolCall = { name: String(fn.name ?? "tool") };
    const input = args(fn.arguments ?? fn.args ?? fn.input);
    if (input) call.inputParameters = input;
    return call;
  });
}

/** One message of any convention as `{role, content}`, its tool calls collected. */
function readMessage(m: JsonValue, calls: FoundToolCall[]): Message | undefined {
  if (!isObj(m)) return typeof m === "string" ? { role: "user", content: m } : undefined;
  const own: FoundToolCall[] = [];
  let content = messageContent(m.parts ?? m.content ?? m.text, own);
  const listed = readToolCalls(m.tool_calls);
  if (listed.length > 0) {
    own.push(...listed);
    const lines = listed.map(callLine).join("\n");
    content = content ? `${content}\n${lines}` : lines;
  }
  calls.push(...own);
  const role = typeof m.role === "string" ? m.role : typeof m.type === "string" && m.type !== "message" ? m.type : "user";
  return { role: role === "human" ? "user" : role === "ai" ? "assistant" : role, content };
}

/** A list of messages in any of the conventions' shapes (LangChain blobs made readable first). */
export function readConversation(value: JsonValue | undefined): Conversation | undefined {
  const v = readable(value);
  let list: JsonValue[] | undefined;
  // Text that is no message list (too large to parse, say): one user message, as it is.
  if (typeof v === "string") return v ? { messages: [{ role: "user", content: v }], toolCalls: [] } : undefined;
  if (Array.isArray(v)) list = v.length === 1 && Array.isArray(v[0]) ? (v[0] as JsonValue[]) : v;
  else if (isObj(v) && Array.isArray(v.messages)) list = v.messages.length === 1 && Array.isArray(v.messages[0]) ? (v.messages[0] as JsonValue[]) : v.messages;
  if (!list || list.length === 0) return undefined;
  const toolCalls: FoundToolCall[] = [];
  const messages = list.map((m) => readMessage(m, toolCalls)).filter((m): m is Message => m !== undefined);
  return messages.length > 0 ? { messages, toolCalls } : undefined;
}

/** Where a flattened message convention keeps each part of a message (attribute key suffixes). */
interface FlatMessageKeys {
  role: string;
  content: string;
  /** Content parts (`contents.M.<text>`), when the convention has them. */
  parts?: { list: string; text: string };
  toolCalls: { list: string; name: string; arguments: string };
}

/** OpenInference: `llm.input_messages.N.message.role`, `.content`, `.contents.M.message_content.text`, `.tool_calls.M.tool_call.function.*`. */
const openInferenceKeys: FlatMessageKeys = {
  role: "message.role",
  content: "message.content",
  parts: { list: "message.contents", text: "message_content.text" },
  toolCalls: { list: "message.tool_calls", name: "tool_call.function.name", arguments: "tool_call.function.arguments" },
};

/** GenAI legacy: `gen_ai.prompt.N.role`, `.content`, `.tool_calls.M.name` / `.arguments`. */
const legacyGenAiKeys: FlatMessageKeys = { role: "role", content: "content", toolCalls: { list: "tool_calls", name: "name", arguments: "arguments" } };

/** Flattened messages (one item per message, keys by convention) as a conversation. */
function readFlatMessages(items: Record<string, AttributeValue>[], keys: FlatMessageKeys): Conversation | undefined {
  if (items.length === 0) return undefined;
  const toolCalls: FoundToolCall[] = [];
  const messages = items.map((item) => {
    const raw = item[keys.content];
    const parts = keys.parts ? subIndexed(item, keys.parts.list).map((p) => p[keys.parts!.text]) : [];
    let content = typeof raw === "string" ? contentFromString(raw) : parts.filter((p) => typeof p === "string").join("");
    const calls = subIndexed(item, keys.toolCalls.list).map((c) => {
      const call: FoundToolCall = { name: String(c[keys.toolCalls.name] ?? "tool") };
      const input = args(c[keys.toolCalls.arguments] as JsonValue | undefined);
      if (input) call.inputParameters = input;
      return call;
    });
    if (calls.length > 0) {
      toolCalls.push(...calls);
      const lines = calls.map(callLine).join("\n");
      content = content ? `${content}\n${lines}` : lines;
    }
    const role = item[keys.role];
    return { role: typeof role === "string" ? role : "user", content };
  });
  return { messages, toolCalls };
}

/** OpenInference's flattened messages. */
export function readIndexedMessages(items: Record<string, AttributeValue>[]): Conversation | undefined {
  return readFlatMessages(items, openInferenceKeys);
}

/** GenAI's legacy flattened messages. */
export function readLegacyMessages(items: Record<string, AttributeValue>[]): Conversation | undefined {
  return readFlatMessages(items, legacyGenAiKeys);
}

/** The text of an llm's output messages: their contents joined. */
export function outputText(conversation: Conversation | undefined): string | undefined {
  if (!conversation) return undefined;
  return conversation.messages.map((m) => m.content).join("\n");
}

/** Tool calls as the service's `toolsCalled`. */
export function toolsCalled(calls: FoundToolCall[]): JsonValue | undefined {
  if (calls.length === 0) return undefined;
  return calls.map((c): JsonValue => (c.inputParameters ? { name: c.name, inputParameters: c.inputParameters } : { name: c.name }));
}
