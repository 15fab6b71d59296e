import type { JsonValue } from "../spans/json-value.js";
import { type Conversation, messageContent, outputText, partsFromString, readConversation, readLegacyMessages } from "./messages.js";
import type { FinishedSpan } from "./types.js";
import { indexed, json } from "./values.js";

/**
 * Where the GenAI conventions keep a span's content, old and new, read in one place: the
 * `gen_ai.input.messages` / `gen_ai.output.messages` attributes (current), the same lists in
 * `gen_ai.client.inference.operation.details` records (a log record's body, or a span event's
 * attributes: Strands' `gen_ai_latest_experimental`), `gen_ai.prompt.N.*` /
 * `gen_ai.completion.N.*` (legacy, flattened), and one event per message (legacy:
 * `gen_ai.user.message` ... `gen_ai.choice`, log records or span events, their content a string,
 * a list of parts, or the JSON text of one).
 */

type Obj = { [key: string]: JsonValue };
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** GenAI content events (span events or log records) → the message role they carry. */
const eventRoles: Record<string, string> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};

/** The event of a model's reply (legacy), its message under `message` (Strands: the JSON text of its parts) or its text under `content` (TanStack AI). */
const CHOICE_EVENT = "gen_ai.choice";

/**
 * Keys of a content event's body that mean something else in a message: the event → body key →
 * message key. `gen_ai.tool.message`'s `id` is the id of the call it answers (the OpenAI
 * instrumentation of opentelemetry-js-contrib emits it so), a tool message's `tool_call_id`.
 */
const eventBodyKeys: Record<string, Record<string, string>> = {
  "gen_ai.tool.message": { id: "tool_call_id" },
};

/**
 * Content records that carry whole message lists as attributes, as the current GenAI conventions
 * have it: the record's name → the keys that hold the input and the output messages.
 */
export const detailsEvents: Record<string, { input: string; output: string }> = {
  "gen_ai.client.inference.operation.details": { input: "gen_ai.input.messages", output: "gen_ai.output.messages" },
};

/** A content record, whichever way it came: a log record's body, or a span event's attributes. */
interface ContentRecord {
  name: string;
  body: JsonValue | undefined;
}

function eventBody(e: FinishedSpan["events"][number]): JsonValue | undefined {
  return e.attributes ? (json(e.attributes["gen_ai.event.content"]) ?? (e.attributes as unknown as JsonValue)) : undefined;
}

/** The content records of a span: log records correlated with it, else its span events. */
function contentRecords(span: FinishedSpan): ContentRecord[] {
  if (span.logs.length > 0) return span.logs.map((l) => ({ name: l.eventName, body: l.body as JsonValue | undefined }));
  return span.events.map((e) => ({ name: e.name, body: eventBody(e) }));
}

/** The message lists the details records of the span hold under their `input` or `output` key, joined in order (a streamed call has one record per output item). */
function detailsMessages(span: FinishedSpan, side: "input" | "output"): JsonValue[] | undefined {
  const list: JsonValue[] = [];
  for (const r of contentRecords(span)) {
    const keys = detailsEvents[r.name];
    if (!keys || !isObj(r.body)) continue;
    const raw = r.body[keys[side]];
    const v = typeof raw === "string" ? json(raw) : raw;
    if (Array.isArray(v)) list.push(...v);
  }
  return list.length > 0 ? list : undefined;
}

/** A content value that may be the JSON text of parts (Strands' events): parsed when it is. */
const contentValue = (v: JsonValue | undefined): JsonValue | undefined => (typeof v === "string" ? partsFromString(v) : v);

/** A content event's body as a message of `role`, its keys renamed per {@link eventBodyKeys}, its content parsed. */
function eventMessage(name: string, role: string, body: Obj): Obj {
  const message: Obj = { ...body, role };
  if (message.content !== undefined) message.content = contentValue(message.content) ?? null;
  const renames = eventBodyKeys[name];
  if (renames === undefined) return message;
  for (const from in renames) {
    const to = renames[from]!;
    if (!Object.hasOwn(body, from) || message[to] !== undefined) continue;
    message[to] = body[from]!;
    delete message[from];
  }
  return message;
}

/** The messages of the per-message events (legacy). */
function eventMessages(span: FinishedSpan): JsonValue[] {
  const list: JsonValue[] = [];
  for (const r of contentRecords(span)) {
    const role = eventRoles[r.name];
    if (!role) continue;
    list.push(eventMessage(r.name, role, isObj(r.body) ? r.body : { content: r.body ?? "" }));
  }
  return list;
}

/** Whether an object is a message rather than a single content part (Bedrock-style `{toolUse}`, `{text}`). */
const wrapsNoPart = (o: Obj): boolean => o.text === undefined && o.toolUse === undefined && o.toolResult === undefined && o.type === undefined;

/** A `gen_ai.choice` body as the assistant message it holds: `message` (an object, parts, or their JSON text) or `content`. */
function choiceMessage(body: JsonValue | undefined): Obj {
  if (!isObj(body)) return { role: "assistant", content: body ?? "" };
  const message = contentValue(body.message);
  if (isObj(message) && wrapsNoPart(message)) return { role: "assistant", ...message };
  if (message !== undefined) return { role: "assistant", content: message };
  return { role: "assistant", content: contentValue(body.content) ?? null };
}

/** The replies of the `gen_ai.choice` events. */
function choiceMessages(span: FinishedSpan): JsonValue[] {
  const list: JsonValue[] = [];
  for (const r of contentRecords(span)) if (r.name === CHOICE_EVENT) list.push(choiceMessage(r.body));
  return list;
}

/** `gen_ai.system_instructions` on the span, else in a details record (Strands' `gen_ai_latest_experimental` emits it in a record of its own). */
function systemInstructions(span: FinishedSpan): JsonValue | undefined {
  const direct = json(span.attributes["gen_ai.system_instructions"]);
  if (direct !== undefined) return direct;
  for (const r of contentRecords(span)) {
    if (!detailsEvents[r.name] || !isObj(r.body)) continue;
    const raw = r.body["gen_ai.system_instructions"];
    const v = typeof raw === "string" ? json(raw) : raw;
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/** Input messages: `gen_ai.input.messages` on the span or in details records (with `gen_ai.system_instructions`), legacy `gen_ai.prompt.N`, or content events. */
export function inputConversation(span: FinishedSpan): Conversation | undefined {
  const a = span.attributes;
  const current = readConversation(json(a["gen_ai.input.messages"])) ?? readConversation(detailsMessages(span, "input"));
  const system = systemInstructions(span);
  if (current) {
    if (system !== undefined) {
      // A details record may hold the instructions among its messages already.
      const content = messageContent(system);
      const first = current.messages[0];
      if (!(first?.role === "system" && first.content === content)) current.messages.unshift({ role: "system", content });
    }
    return current;
  }
  return readLegacyMessages(indexed(a, "gen_ai.prompt")) ?? readConversation(eventMessages(span));
}

/** Output messages: `gen_ai.output.messages` on the span or in details records, legacy `gen_ai.completion.N`, or `gen_ai.choice` events. */
export function outputConversation(span: FinishedSpan): Conversation | undefined {
  const a = span.attributes;
  return readConversation(json(a["gen_ai.output.messages"])) ?? readConversation(detailsMessages(span, "output")) ?? readLegacyMessages(indexed(a, "gen_ai.completion")) ?? readConversation(choiceMessages(span));
}

/** The text parts of a message list (GenAI parts: `{type: "text", content}`), joined; undefined when it has none. */
function textParts(list: JsonValue | undefined): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const texts: string[] = [];
  for (const m of list) {
    if (!isObj(m) || !Array.isArray(m.parts)) continue;
    for (const p of m.parts) if (isObj(p) && p.type === "text" && typeof p.content === "string" && p.content !== "") texts.push(p.content);
  }
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/**
 * An agent's answer: the text of its output messages (AI SDK 7's `invoke_agent` lists the run's
 * tool calls beside it, which are its model calls' outputs, not its answer), else its output as
 * an llm's would read.
 */
export function agentAnswer(span: FinishedSpan): string | undefined {
  return textParts(json(span.attributes["gen_ai.output.messages"])) ?? textParts(detailsMessages(span, "output")) ?? outputText(outputConversation(span));
}

/** The tool call or result part a tool span's message list holds, if any. */
function toolPart(messages: JsonValue[] | undefined, key: "arguments" | "response"): JsonValue | undefined {
  for (const m of messages ?? []) {
    if (!isObj(m) || !Array.isArray(m.parts)) continue;
    for (const p of m.parts) if (isObj(p) && p[key] !== undefined) return p[key];
  }
  return undefined;
}

/** A tool message's content (`[{role: "tool", content}]`, TanStack AI), if the list is one. */
function toolMessageContent(messages: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(messages) || messages.length !== 1) return undefined;
  const m = messages[0];
  return isObj(m) && m.role === "tool" && m.content !== undefined ? m.content : undefined;
}

/** A tool's value (its arguments or result) as read: JSON text parsed, a list of content parts as its text. */
function toolValue(v: JsonValue | undefined): JsonValue | undefined {
  const parsed = typeof v === "string" ? json(v) : v;
  if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((p) => isObj(p) && (typeof p.type === "string" || typeof p.text === "string"))) return messageContent(parsed);
  return parsed;
}

/**
 * A tool span's arguments: `gen_ai.tool.call.arguments`, else the `tool_call` part of its input
 * messages (attribute or details records), else its one tool message's content, else its
 * `gen_ai.tool.message` event (Strands' legacy events).
 */
export function toolArguments(span: FinishedSpan): JsonValue | undefined {
  const a = span.attributes;
  const direct = json(a["gen_ai.tool.call.arguments"]);
  if (direct !== undefined) return direct;
  const attr = json(a["gen_ai.input.messages"]);
  const listed = toolPart(Array.isArray(attr) ? attr : undefined, "arguments") ?? toolPart(detailsMessages(span, "input"), "arguments") ?? toolMessageContent(attr);
  if (listed !== undefined) return toolValue(listed);
  for (const r of contentRecords(span)) if (r.name === "gen_ai.tool.message" && isObj(r.body) && r.body.content !== undefined) return toolValue(r.body.content);
  return undefined;
}

/** A tool span's result (a list of content parts as its text): `gen_ai.tool.call.result`, else the `tool_call_response` part of its output messages, else its one tool message's content, else its `gen_ai.choice` event. */
export function toolResult(span: FinishedSpan): JsonValue | undefined {
  const a = span.attributes;
  const direct = json(a["gen_ai.tool.call.result"]);
  if (direct !== undefined) return toolValue(direct);
  const attr = json(a["gen_ai.output.messages"]);
  const listed = toolPart(Array.isArray(attr) ? attr : undefined, "response") ?? toolPart(detailsMessages(span, "output"), "response") ?? toolMessageContent(attr);
  if (listed !== undefined) return toolValue(listed);
  for (const r of contentRecords(span)) {
    if (r.name !== CHOICE_EVENT || !isObj(r.body)) continue;
    const v = r.body.message ?? r.body.content;
    if (v !== undefined) return toolValue(v);
  }
  return undefined;
}

/** An agent's tools: `gen_ai.agent.tools` (Strands: the JSON list of their names), else the names in `gen_ai.tool.definitions`. */
export function agentTools(span: FinishedSpan): string[] | undefined {
  const a = span.attributes;
  const listed = json(a["gen_ai.agent.tools"]) ?? json(a["gen_ai.tool.definitions"]);
  if (!Array.isArray(listed)) return undefined;
  const names: string[] = [];
  for (const t of listed) {
    if (typeof t === "string") names.push(t);
    else if (isObj(t) && typeof t.name === "string") names.push(t.name);
    else if (isObj(t) && isObj(t.function) && typeof t.function.name === "string") names.push(t.function.name);
  }
  return names.length > 0 ? names : undefined;
}
