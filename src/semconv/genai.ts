import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { type Conversation, messageContent, outputText, readConversation, readLegacyMessages, toolsCalled } from "./messages.js";
import type { Convention, FinishedSpan } from "./types.js";
import { indexed, json, str } from "./values.js";

/** `gen_ai.operation.name` → span type (OTel GenAI semantic conventions). */
const operationTypes: Record<string, SpanType> = {
  chat: "llm",
  text_completion: "llm",
  generate_content: "llm",
  embeddings: "llm",
  execute_tool: "tool",
  invoke_agent: "agent",
  create_agent: "agent",
  workflow: "base",
  task: "base",
};

/** GenAI content events (span events or log records) → the message role they carry. */
const eventRoles: Record<string, string> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};

/**
 * Keys of a content event's body that mean something else in a message: the event → body key →
 * message key. `gen_ai.tool.message`'s `id` is the id of the call it answers (the OpenAI
 * instrumentation of opentelemetry-js-contrib emits it so), a tool message's `tool_call_id`.
 */
const eventBodyKeys: Record<string, Record<string, string>> = {
  "gen_ai.tool.message": { id: "tool_call_id" },
};

/** A content event's body as a message of `role`, its keys renamed per {@link eventBodyKeys}. */
function eventMessage(name: string, role: string, body: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
  const message: { [key: string]: JsonValue } = { role, ...body };
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

/**
 * Content records that carry whole message lists as attributes, as the current GenAI conventions
 * have it: the record's name → the keys that hold the input and the output messages.
 */
export const detailsEvents: Record<string, { input: string; output: string }> = {
  "gen_ai.client.inference.operation.details": { input: "gen_ai.input.messages", output: "gen_ai.output.messages" },
};

/**
 * The messages the details records of the span hold under their `input` or `output` key, in
 * order (a streamed call has one record per output item).
 */
function conversationFromDetails(span: FinishedSpan, side: "input" | "output"): Conversation | undefined {
  const list: JsonValue[] = [];
  for (const l of span.logs) {
    const keys = detailsEvents[l.eventName];
    const body = l.body;
    if (!keys || !body || typeof body !== "object" || Array.isArray(body)) continue;
    const raw = (body as { [key: string]: unknown })[keys[side]];
    const v = typeof raw === "string" ? json(raw) : (raw as JsonValue | undefined);
    if (Array.isArray(v)) list.push(...v);
  }
  return list.length > 0 ? readConversation(list) : undefined;
}

function eventBody(e: { attributes?: FinishedSpan["attributes"]; body?: unknown }): JsonValue | undefined {
  if (e.body !== undefined) return e.body as JsonValue;
  return e.attributes ? (json(e.attributes["gen_ai.event.content"]) ?? (e.attributes as unknown as JsonValue)) : undefined;
}

/** The content events of a span: log records correlated with it, else its span events. */
function contentEvents(span: FinishedSpan): { name: string; body: JsonValue | undefined }[] {
  const fromLogs = span.logs.map((l) => ({ name: l.eventName, body: l.body as JsonValue | undefined }));
  if (fromLogs.length > 0) return fromLogs;
  return span.events.map((e) => ({ name: e.name, body: eventBody(e) }));
}

function inputFromEvents(span: FinishedSpan): Conversation | undefined {
  const list: JsonValue[] = [];
  for (const e of contentEvents(span)) {
    const role = eventRoles[e.name];
    if (!role) continue;
    const body = e.body && typeof e.body === "object" && !Array.isArray(e.body) ? e.body : { content: e.body ?? "" };
    list.push(eventMessage(e.name, role, body));
  }
  return readConversation(list);
}

function outputFromEvents(span: FinishedSpan): Conversation | undefined {
  const list: JsonValue[] = [];
  for (const e of contentEvents(span)) {
    if (e.name !== "gen_ai.choice") continue;
    const body = e.body && typeof e.body === "object" && !Array.isArray(e.body) ? e.body : {};
    const message = body.message && typeof body.message === "object" && !Array.isArray(body.message) ? body.message : body;
    list.push({ role: "assistant", ...message });
  }
  return readConversation(list);
}

/** Input messages: `gen_ai.input.messages` on the span or in details records (with `gen_ai.system_instructions`), legacy `gen_ai.prompt.N`, or content events. */
function inputConversation(span: FinishedSpan): Conversation | undefined {
  const a = span.attributes;
  const current = readConversation(json(a["gen_ai.input.messages"])) ?? conversationFromDetails(span, "input");
  const system = json(a["gen_ai.system_instructions"]);
  if (current) {
    if (system !== undefined) {
      // A details record may hold the instructions among its messages already.
      const content = messageContent(system);
      const first = current.messages[0];
      if (!(first?.role === "system" && first.content === content)) current.messages.unshift({ role: "system", content });
    }
    return current;
  }
  return readLegacyMessages(indexed(a, "gen_ai.prompt")) ?? inputFromEvents(span);
}

function outputConversation(span: FinishedSpan): Conversation | undefined {
  const a = span.attributes;
  return readConversation(json(a["gen_ai.output.messages"])) ?? conversationFromDetails(span, "output") ?? readLegacyMessages(indexed(a, "gen_ai.completion")) ?? outputFromEvents(span);
}

/**
 * OpenTelemetry GenAI semantic conventions, current (`gen_ai.input.messages` with typed parts,
 * `gen_ai.provider.name`) and legacy (`gen_ai.prompt.N.*`, `gen_ai.completion.N.*`,
 * `gen_ai.system`), with content from span events or correlated log records.
 */
export const genAi: Convention = {
  name: "OpenTelemetry GenAI",
  claims: (span) => Object.keys(span.attributes).some((k) => k.startsWith("gen_ai.")),
  type(span) {
    const a = span.attributes;
    const op = str(a["gen_ai.operation.name"]);
    // An operation around model calls of its own kind (AI SDK 7's `embed` around its
    // `embeddings` calls, which carry the tokens) is not a second model call.
    if (op && operationTypes[op] === "llm" && span.childOperations?.includes(op)) return "base";
    if (op && operationTypes[op]) return operationTypes[op];
    if (a["gen_ai.tool.name"] !== undefined) return "tool";
    if (a["gen_ai.request.model"] !== undefined || a["gen_ai.response.model"] !== undefined) return "llm";
    return "base";
  },
  fields: [
    { field: "model", keys: ["gen_ai.response.model", "gen_ai.request.model"], as: "string", types: ["llm"] },
    { field: "provider", keys: ["gen_ai.provider.name", "gen_ai.system"], as: "string", types: ["llm"] },
    { field: "inputTokenCount", keys: ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"], as: "count", types: ["llm"] },
    { field: "outputTokenCount", keys: ["gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"], as: "count", types: ["llm"] },
    { field: "description", keys: ["gen_ai.tool.description"], as: "string", types: ["tool"] },
  ],
  spanName(span, type) {
    const a = span.attributes;
    if (type === "tool") return str(a["gen_ai.tool.name"]);
    if (type === "agent") return str(a["gen_ai.agent.name"]);
    return undefined;
  },
  input(span, type) {
    const a = span.attributes;
    if (type === "tool") return json(a["gen_ai.tool.call.arguments"]);
    if (type === "llm") return inputConversation(span)?.messages as unknown as JsonValue;
    return undefined;
  },
  output(span, type) {
    const a = span.attributes;
    if (type === "tool") return json(a["gen_ai.tool.call.result"]);
    if (type === "llm") return outputText(outputConversation(span));
    return undefined;
  },
  extra(span, type) {
    if (type !== "llm") return undefined;
    const calls = toolsCalled(outputConversation(span)?.toolCalls ?? []);
    return calls ? { toolsCalled: calls } : undefined;
  },
};
