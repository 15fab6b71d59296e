import type { JsonValue } from "../spans/json-value.js";
import { genAi } from "./genai.js";
import { type Conversation, messageContent, outputText, readConversation, toolsCalled } from "./messages.js";
import type { Convention, FinishedSpan } from "./types.js";
import { json } from "./values.js";

/**
 * Google ADK's own attributes beside its GenAI ones (google/adk-js
 * core/src/telemetry/tracing.ts): the attribute → what it holds. A model call's span has the
 * LlmRequest (`{model, contents, config}`, Gemini `Content`s) and the LlmResponse (`{content,
 * usageMetadata}`); a tool's span its arguments and its response. ADK sets the llm ones to `{}`
 * on tool spans, and all of them to `{}` when content capture is off.
 */
const attributes = {
  request: "gcp.vertex.agent.llm_request",
  response: "gcp.vertex.agent.llm_response",
  toolArgs: "gcp.vertex.agent.tool_call_args",
  toolResponse: "gcp.vertex.agent.tool_response",
} as const;

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const read = (span: FinishedSpan, key: string): JsonValue | undefined => json(span.attributes[key]);

/** An LlmRequest's messages: its system instruction (a string or a `Content`) first, then its contents. */
function requestConversation(span: FinishedSpan): Conversation | undefined {
  const request = read(span, attributes.request);
  if (!isObj(request) || !Array.isArray(request.contents)) return undefined;
  const list: JsonValue[] = [];
  const system = isObj(request.config) ? request.config.systemInstruction : undefined;
  if (system !== undefined && system !== null) list.push({ role: "system", content: messageContent(isObj(system) && Array.isArray(system.parts) ? system.parts : system) });
  list.push(...request.contents);
  return readConversation(list);
}

/** An LlmResponse's reply: its `content` (role `model`, Gemini parts). */
function responseConversation(span: FinishedSpan): Conversation | undefined {
  const response = read(span, attributes.response);
  return isObj(response) && isObj(response.content) ? readConversation([response.content]) : undefined;
}

/**
 * Google ADK (`@google/adk`): its GenAI spans read by the GenAI table, with the content ADK
 * keeps in its `gcp.vertex.agent.*` attributes (messages, reply, tool arguments and results).
 */
export const adk: Convention = {
  ...genAi,
  name: "Google ADK",
  claims: (span) => Object.values(attributes).some((key) => span.attributes[key] !== undefined),
  input(span, type) {
    if (type === "llm") return (requestConversation(span)?.messages as unknown as JsonValue) ?? genAi.input?.(span, type);
    if (type === "tool") return read(span, attributes.toolArgs) ?? genAi.input?.(span, type);
    return genAi.input?.(span, type);
  },
  output(span, type) {
    if (type === "llm") return outputText(responseConversation(span)) ?? genAi.output?.(span, type);
    if (type === "tool") return read(span, attributes.toolResponse) ?? genAi.output?.(span, type);
    return genAi.output?.(span, type);
  },
  extra(span, type) {
    const base = genAi.extra?.(span, type);
    if (type !== "llm") return base;
    const calls = toolsCalled(responseConversation(span)?.toolCalls ?? []);
    return calls ? { ...base, toolsCalled: calls } : base;
  },
};
