import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { outputText, readConversation, toolsCalled } from "./messages.js";
import type { Convention, FinishedSpan } from "./types.js";
import { json, str } from "./values.js";

/**
 * `genkit:metadata:subtype` (the action type) → span type. Of the `util` spans only `generate`
 * (the tool loop around the model actions, see `isGenerate`) is kept; other `genkit:type`s are
 * left out, their children re-parented.
 */
const subtypes: Record<string, SpanType> = {
  flow: "base",
  model: "llm",
  "background-model": "llm",
  embedder: "llm",
  tool: "tool",
  "tool.v2": "tool",
  retriever: "retriever",
  indexer: "base",
  prompt: "base",
  "executable-prompt": "base",
  custom: "base",
};

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A Genkit message list (`{role, content: parts}`; its `model` role is read as the assistant's, messages.ts). */
const messages = (list: JsonValue | undefined): JsonValue[] | undefined => (Array.isArray(list) ? list : undefined);

/** A model action's reply: the GenerateResponse's `message`, or its first candidate's (older Genkit). */
function replyMessages(output: JsonValue | undefined): JsonValue[] | undefined {
  if (!isObj(output)) return undefined;
  if (isObj(output.message)) return messages([output.message]);
  const first = Array.isArray(output.candidates) ? output.candidates[0] : undefined;
  return isObj(first) && isObj(first.message) ? messages([first.message]) : undefined;
}

/**
 * `ai.generate()`'s own span (`genkit:type` util, named `generate`): kept as a base span with the
 * conversation it was asked and the answer it returned, since it is the trace's root when an app
 * calls generate outside a flow (the guide's tool-calling example), and the trace's input and
 * output are its root's.
 */
const isGenerate = (span: FinishedSpan) => span.attributes["genkit:type"] === "util" && span.attributes["genkit:name"] === "generate";

const input = (span: FinishedSpan) => json(span.attributes["genkit:input"]);
const output = (span: FinishedSpan) => json(span.attributes["genkit:output"]);

/** A model action's name, `plugin/model`: its provider and model. */
function modelName(span: FinishedSpan): { provider?: string; model: string } | undefined {
  const name = str(span.attributes["genkit:name"]);
  if (name === undefined) return undefined;
  const slash = name.indexOf("/");
  return slash > 0 ? { provider: name.slice(0, slash), model: name.slice(slash + 1) } : { model: name };
}

/**
 * Firebase Genkit (`genkit:*` attributes, js/core/src/tracing/instrumentation.ts): each action
 * runs in a span with its type, name, JSON input and output; a model action's input is a
 * GenerateRequest and its output a GenerateResponse (messages, usage).
 */
export const genkit: Convention = {
  name: "Genkit",
  claims: (span) => span.attributes["genkit:type"] !== undefined,
  type(span) {
    const a = span.attributes;
    if (a["genkit:type"] === "flowStep" || isGenerate(span)) return "base";
    if (a["genkit:type"] !== "action") return undefined;
    return subtypes[String(a["genkit:metadata:subtype"])] ?? "base";
  },
  fields: [],
  spanName: (span, type) => (type === "tool" ? str(span.attributes["genkit:name"]) : undefined),
  input(span, type) {
    const value = input(span);
    if ((type === "llm" || isGenerate(span)) && isObj(value)) return (readConversation(messages(value.messages))?.messages as unknown as JsonValue) ?? value;
    return value;
  },
  output(span, type) {
    const value = output(span);
    if (type === "llm" || isGenerate(span)) return outputText(readConversation(replyMessages(value))) ?? value;
    return value;
  },
  extra(span, type) {
    if (type !== "llm") return undefined;
    const out: Obj = {};
    const name = modelName(span);
    if (name !== undefined) {
      out.model = name.model;
      if (name.provider !== undefined) out.provider = name.provider;
    }
    const response = output(span);
    const usage = isObj(response) && isObj(response.usage) ? response.usage : undefined;
    if (typeof usage?.inputTokens === "number") out.inputTokenCount = usage.inputTokens;
    if (typeof usage?.outputTokens === "number") out.outputTokenCount = usage.outputTokens;
    const calls = toolsCalled(readConversation(replyMessages(response))?.toolCalls ?? []);
    if (calls) out.toolsCalled = calls;
    return out;
  },
};
