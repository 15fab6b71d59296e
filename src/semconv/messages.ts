import type { AttributeValue, Attributes } from "@opentelemetry/api";
import type { JsonValue } from "../spans/json-value.js";
import { toText } from "../spans/serialize.js";
import type { FoundToolCall, Message } from "./types.js";
import { indexedLists, json } from "./values.js";
import { readable } from "../spans/lc-values.js";

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const text = (v: JsonValue | undefined): string => (v === undefined || v === null ? "" : typeof v === "string" ? v : toText(v));

/** An assistant's tool call as a readable message keeps it: its name, arguments and id. */
export interface ReadableToolCall {
  /** The id its result answers to (`tool_call_id`), when the convention gives one. */
  id?: string;
  name: string;
  arguments?: { [key: string]: JsonValue };
}

/**
 * A message as the readable llm input holds it: a role and plain text (tool calls folded in as
 * `name(arguments)` lines, so that it reads without the rest), the assistant's `tool_calls`, and
 * for a tool result the `tool_call_id` of the call it answers.
 */
export interface ReadableMessage extends Message {
  tool_calls?: ReadableToolCall[];
  tool_call_id?: string;
}

/** Messages plus the tool calls they carry. */
export interface Conversation {
  messages: ReadableMessage[];
  toolCalls: FoundToolCall[];
}

/** A tool call found while reading, with the id that links it to its result. */
type Call = FoundToolCall & { id?: string };

/** What reading a message's parts collects beside its text: calls, and ids of the calls it answers. */
interface Found {
  calls: Call[];
  answers: string[];
}

/** A call or result id: the first of `keys` that is a non-empty string (or number). */
function idOf(o: Obj, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = o[key];
    if ((typeof v === "string" && v !== "") || typeof v === "number") return String(v);
  }
  return undefined;
}

/** Where each convention keeps a call's id: Responses `call_id` (its `id` is the item's), the Agents SDK `callId`, the AI SDK `toolCallId`, Bedrock and Strands `toolUseId`, then `id` (OpenAI Chat, GenAI, Anthropic, Gemini). */
const CALL_ID_KEYS = ["call_id", "callId", "toolCallId", "toolUseId", "id", "ref"] as const;
/** Where a result names its call: OpenAI `tool_call_id`, Responses `call_id`, Agents SDK `callId`, Anthropic `tool_use_id`, AI SDK `toolCallId`, Bedrock and Strands `toolUseId`, GenAI `id`. */
const RESULT_ID_KEYS = ["tool_call_id", "call_id", "callId", "tool_use_id", "toolCallId", "toolUseId", "id", "ref"] as const;

/**
 * Part `type`s that are a tool call: GenAI `tool_call`, Anthropic `tool_use`, AI SDK
 * `tool-call`, Responses `function_call`, Strands (TypeScript) `toolUseBlock` and, in its
 * legacy events, `toolUse`.
 */
const CALL_TYPES = new Set(["tool_call", "tool_use", "tool-call", "function_call", "toolUseBlock", "toolUse"]);
/**
 * Part `type`s that are a tool's result: GenAI `tool_call_response`, Anthropic `tool_result`,
 * AI SDK `tool-result`, Responses `function_call_output`, Agents SDK `function_call_result`,
 * Strands (TypeScript) `toolResultBlock` and `toolResult`.
 */
const RESULT_TYPES = new Set(["tool_call_response", "tool_result", "tool-result", "function_call_output", "function_call_result", "toolResultBlock", "toolResult"]);
/**
 * Untyped parts that wrap a call or a result under one key: Bedrock Converse content blocks
 * (`{toolUse: {toolUseId, name, input}}`, `{toolResult: {toolUseId, content}}`, as Strands
 * Python's events hold them) and Gemini parts (`{functionCall: {id, name, args}}`,
 * `{functionResponse: {id, name, response}}`, as ADK's llm_request holds them) and Genkit's
 * (`{toolRequest: {ref, name, input}}`, `{toolResponse: {ref, name, output}}`).
 */
const WRAPPED_PARTS: Record<string, "call" | "result"> = { toolUse: "call", functionCall: "call", toolRequest: "call", toolResult: "result", functionResponse: "result", toolResponse: "result" };

/** The key of an untyped part that wraps a call or a result ({@link WRAPPED_PARTS}), if it is one. */
function wrapperKey(part: Obj): string | undefined {
  if (part.type !== undefined) return undefined;
  for (const key in WRAPPED_PARTS) if (isObj(part[key])) return key;
  return undefined;
}

/** A tool call as one line of text, so that a message of calls only still reads as something. */
function callLine(call: FoundToolCall): string {
  return `${call.name}(${call.inputParameters === undefined ? "" : toText(call.inputParameters)})`;
}

/** A found call as the readable message lists it. */
function readableCall(call: Call): ReadableToolCall {
  // The id first: it is what the tool message's tool_call_id points at.
  const out: ReadableToolCall = call.id === undefined ? { name: call.name } : { id: call.id, name: call.name };
  if (call.inputParameters !== undefined) out.arguments = call.inputParameters;
  return out;
}

function args(v: JsonValue | undefined): Obj | undefined {
  const parsed = typeof v === "string" ? json(v) : v;
  return isObj(parsed) ? parsed : parsed === undefined || parsed === "" ? undefined : { value: parsed ?? null };
}

/**
 * One part of a message's content, whatever the convention: text (OpenAI `text`, GenAI
 * `content`), a tool call (GenAI `tool_call`, Anthropic `tool_use`, AI SDK `tool-call`, Responses
 * `function_call`) or a tool result (GenAI `tool_call_response`, Anthropic `tool_result`, AI SDK
 * `tool-result`, Responses `function_call_output`, Agents SDK `function_call_result`); the ids
 * linking them are collected in `found`.
 */
function readPart(part: JsonValue, found: Found): string {
  if (!isObj(part)) return text(part);
  const wrapper = wrapperKey(part);
  if (wrapper !== undefined) {
    const inner = part[wrapper] as Obj;
    return readPart({ ...inner, type: WRAPPED_PARTS[wrapper] === "call" ? "tool_call" : "tool_call_response" }, found);
  }
  const type = typeof part.type === "string" ? part.type : "text";
  if (CALL_TYPES.has(type)) {
    const call = callOf(part);
    found.calls.push(call);
    return callLine(call);
  }
  if (RESULT_TYPES.has(type)) {
    const id = idOf(part, RESULT_ID_KEYS);
    if (id !== undefined) found.answers.push(id);
    return resultText(part);
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
  // Typed parts have a "type" key: JSON without one (spelt out or escaped) is no parts, unparsed.
  if (!text.includes('"type"') && !text.includes("\\u")) return text;
  const parsed = json(text);
  const typed = (p: JsonValue) => isObj(p) && typeof p.type === "string";
  if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(typed)) return messageContent(parsed);
  if (parsed !== undefined && typeof parsed !== "string" && typed(parsed)) return messageContent(parsed);
  return text;
}

/** Keys that make an untyped object a content part: text, or a wrapped call or result ({@link WRAPPED_PARTS}). */
const PART_KEYS = ["text", "content", ...Object.keys(WRAPPED_PARTS)];
const isPart = (p: JsonValue): boolean => isObj(p) && (typeof p.type === "string" || PART_KEYS.some((k) => p[k] !== undefined));

/**
 * A content written as JSON text, as the legacy GenAI events of some frameworks hold it (Strands
 * serialises its content blocks): a list of parts (typed, or Bedrock-style `{text}`,
 * `{toolUse}` ...) parsed; any other text, JSON-looking or not, stays as it is.
 */
export function partsFromString(value: string): JsonValue {
  const t = value.trimStart();
  if (!t.startsWith("[") && !t.startsWith("{")) return value;
  const parsed = json(value);
  if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(isPart)) return parsed;
  if (parsed !== undefined && !Array.isArray(parsed) && typeof parsed === "object" && parsed !== null && isPart(parsed) && wrapperKey(parsed as Obj) !== undefined) return parsed;
  return value;
}

/** A call part or item (`{name, arguments}`, `{toolName, input}`, `{name, args}`) with its id. */
function callOf(part: Obj): Call {
  const call: Call = { name: String(part.name ?? part.toolName ?? "tool") };
  const input = args(part.arguments ?? part.input ?? part.args);
  if (input) call.inputParameters = input;
  const id = idOf(part, CALL_ID_KEYS);
  if (id !== undefined) call.id = id;
  return call;
}

/** A tool result's text: its output as written, a content part (or list of them) read as text. */
function resultText(part: Obj): string {
  const value = part.response ?? part.content ?? part.output ?? part.result ?? part.value;
  return typeof value === "string" ? contentFromString(value) : messageContent(value);
}

function readContent(content: JsonValue | undefined, found: Found): string {
  if (Array.isArray(content)) return content.map((p) => readPart(p, found)).join("");
  if (isObj(content)) return readPart(content, found);
  return text(content);
}

/** The plain text of a message content: a string, or a list of parts. */
export function messageContent(content: JsonValue | undefined, calls: FoundToolCall[] = []): string {
  return readContent(content, { calls, answers: [] });
}

/** An OpenAI/LangChain `tool_calls` list: `{id, function: {name, arguments}}` or `{id, name, args}`. */
function readToolCalls(list: JsonValue | undefined): Call[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObj).map((c) => {
    const call = callOf(isObj(c.function) ? c.function : c);
    const id = idOf(c, CALL_ID_KEYS);
    if (id !== undefined) call.id = id;
    return call;
  });
}

/** `content` with the call lines it does not hold yet (a readable message holds them already). */
function withCallLines(content: string, calls: readonly Call[]): string {
  const have = new Set(content.split("\n"));
  const lines = calls.map(callLine).filter((l) => !have.has(l));
  if (lines.length === 0) return content;
  return content ? `${content}\n${lines.join("\n")}` : lines.join("\n");
}

/** A message with its calls and the call it answers, each kept only when there is one. */
function readableMessage(role: string, content: string, calls: readonly Call[], answers: readonly string[]): ReadableMessage {
  const out: ReadableMessage = { role, content };
  if (calls.length > 0) out.tool_calls = calls.map(readableCall);
  // A message answering several calls at once (Anthropic) has no one id to give.
  const first = answers[0];
  if (first !== undefined && answers.every((a) => a === first)) out.tool_call_id = first;
  return out;
}

/** One message of any convention as `{role, content}` (with its tool-call links), its tool calls collected. */
function readMessage(m: JsonValue, calls: FoundToolCall[]): ReadableMessage | undefined {
  if (!isObj(m)) return typeof m === "string" ? { role: "user", content: m } : undefined;
  // Items of the OpenAI Responses API and of the Agents SDK: a call, a call's result.
  if (m.role === undefined && m.type === "function_call") {
    const call = callOf(m);
    calls.push(call);
    return readableMessage("assistant", callLine(call), [call], []);
  }
  if (m.role === undefined && (m.type === "function_call_output" || m.type === "function_call_result")) {
    const id = idOf(m, RESULT_ID_KEYS);
    return readableMessage("tool", resultText(m), [], id === undefined ? [] : [id]);
  }
  const found: Found = { calls: [], answers: [] };
  let content = readContent(m.parts ?? m.content ?? m.text, found);
  const listed = readToolCalls(m.tool_calls);
  if (listed.length > 0) {
    content = withCallLines(content, listed);
    found.calls.push(...listed);
  }
  calls.push(...found.calls);
  const own = idOf(m, ["tool_call_id", "toolCallId"]);
  const role = typeof m.role === "string" ? m.role : typeof m.type === "string" && m.type !== "message" ? m.type : "user";
  return readableMessage(role === "human" ? "user" : role === "ai" || role === "model" ? "assistant" : role, content, found.calls, own === undefined ? found.answers : [own]);
}

/**
 * Consecutive calls of one turn in one assistant message, as Chat Completions has them: the
 * Responses API lists each call as an item of its own after the turn's text.
 */
function mergeCalls(messages: ReadableMessage[], items: readonly JsonValue[]): ReadableMessage[] {
  const out: ReadableMessage[] = [];
  messages.forEach((m, i) => {
    const item = items[i];
    const prev = out.at(-1);
    const isCallItem = isObj(item) && item.role === undefined && item.type === "function_call";
    if (isCallItem && prev?.role === "assistant" && prev.tool_call_id === undefined && m.tool_calls) {
      prev.content = prev.content ? `${prev.content}\n${m.content}` : m.content;
      prev.tool_calls = [...(prev.tool_calls ?? []), ...m.tool_calls];
    } else out.push(m);
  });
  return out;
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
  const items = list.filter((m) => isObj(m) || typeof m === "string");
  const messages = mergeCalls(
    items.map((m) => readMessage(m, toolCalls)!),
    items,
  );
  return messages.length > 0 ? { messages, toolCalls } : undefined;
}

/** Where a flattened message convention keeps each part of a message (attribute key suffixes). */
interface FlatMessageKeys {
  role: string;
  content: string;
  /** A tool message's id of the call it answers. */
  toolCallId: string;
  /** Content parts (`contents.M.<text>`), when the convention has them. */
  parts?: { list: string; text: string };
  toolCalls: { list: string; id: string; name: string; arguments: string };
}

/** OpenInference: `llm.input_messages.N.message.role`, `.content`, `.tool_call_id`, `.contents.M.message_content.text`, `.tool_calls.M.tool_call.{id,function.*}`. */
const openInferenceKeys: FlatMessageKeys = {
  role: "message.role",
  content: "message.content",
  toolCallId: "message.tool_call_id",
  parts: { list: "message.contents", text: "message_content.text" },
  toolCalls: { list: "message.tool_calls", id: "tool_call.id", name: "tool_call.function.name", arguments: "tool_call.function.arguments" },
};

/** GenAI legacy: `gen_ai.prompt.N.role`, `.content`, `.tool_call_id`, `.tool_calls.M.id` / `.name` / `.arguments`. */
const legacyGenAiKeys: FlatMessageKeys = { role: "role", content: "content", toolCallId: "tool_call_id", toolCalls: { list: "tool_calls", id: "id", name: "name", arguments: "arguments" } };

/** Flattened messages (one item per message, keys by convention) as a conversation. */
function readFlatMessages(items: Record<string, AttributeValue>[], keys: FlatMessageKeys): Conversation | undefined {
  if (items.length === 0) return undefined;
  const toolCalls: FoundToolCall[] = [];
  const messages: ReadableMessage[] = [];
  // A message's parts and tool calls, in one pass over its keys.
  const lists = keys.parts ? [keys.toolCalls.list, keys.parts.list] : [keys.toolCalls.list];
  for (const item of items) {
    const [listed, parts] = indexedLists(item as Attributes, lists);
    const raw = item[keys.content];
    let content: string;
    if (typeof raw === "string") content = contentFromString(raw);
    else {
      content = "";
      if (parts !== undefined) {
        for (const p of parts) {
          const t = p[keys.parts!.text];
          if (typeof t === "string") content += t;
        }
      }
    }
    const calls: Call[] = [];
    for (const c of listed!) {
      const name = c[keys.toolCalls.name];
      const call: Call = { name: String(name === undefined || name === null ? "tool" : name) };
      const input = args(c[keys.toolCalls.arguments] as JsonValue | undefined);
      if (input) call.inputParameters = input;
      const id = c[keys.toolCalls.id];
      if (typeof id === "string" && id !== "") call.id = id;
      calls.push(call);
    }
    if (calls.length > 0) {
      for (const call of calls) toolCalls.push(call);
      content = withCallLines(content, calls);
    }
    const role = item[keys.role];
    const answers = item[keys.toolCallId];
    messages.push(readableMessage(typeof role === "string" ? role : "user", content, calls, typeof answers === "string" && answers !== "" ? [answers] : NO_ANSWERS));
  }
  return { messages, toolCalls };
}

const NO_ANSWERS: readonly string[] = Object.freeze([]);

/** OpenInference's flattened messages. */
export function readIndexedMessages(items: Record<string, AttributeValue>[]): Conversation | undefined {
  return readFlatMessages(items, openInferenceKeys);
}

/** GenAI's legacy flattened messages. */
export function readLegacyMessages(items: Record<string, AttributeValue>[]): Conversation | undefined {
  return readFlatMessages(items, legacyGenAiKeys);
}

/** Whether a conversation lacks a link: a tool call with no id, or a tool message with no `tool_call_id`. */
export function lacksLinks(conversation: Conversation): boolean {
  return conversation.messages.some((m) => (m.role === "tool" && m.tool_call_id === undefined) || m.tool_calls?.some((c) => c.id === undefined) === true);
}

/**
 * `conversation` with the links it lacks (tool calls' ids, tool messages' `tool_call_id`) taken
 * from `source`, the same messages read from elsewhere (OpenInference's LangChain instrumentation
 * flattens messages without their ids, and keeps them in `input.value`): message by message,
 * only where both have the same roles and the same number of tool calls.
 */
export function withLinksFrom(conversation: Conversation, source: Conversation | undefined): Conversation {
  const from = source?.messages;
  if (from === undefined || from.length !== conversation.messages.length) return conversation;
  if (from.some((m, i) => m.role !== conversation.messages[i]!.role)) return conversation;
  conversation.messages.forEach((m, i) => {
    const other = from[i]!;
    if (m.tool_call_id === undefined && other.tool_call_id !== undefined) m.tool_call_id = other.tool_call_id;
    const calls = m.tool_calls;
    if (calls === undefined || other.tool_calls?.length !== calls.length) return;
    calls.forEach((c, k) => {
      const id = other.tool_calls![k]!.id;
      if (c.id === undefined && id !== undefined && other.tool_calls![k]!.name === c.name) m.tool_calls![k] = { id, ...c };
    });
  });
  return conversation;
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
