import { context } from "@opentelemetry/api";
import { readConversation, toolsCalled } from "../../semconv/messages.js";
import type { FoundToolCall, Message } from "../../semconv/types.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { messageText } from "../../spans/message-text.js";
import type { JsonValue } from "../../spans/json-value.js";
import { buildTestCase, type LlmTestCaseOption } from "../../spans/test-case.js";
import { incomplete } from "../kit/model-call.js";
import { type CallResult, tapOpenAIStream, type Usage } from "./stream.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

export type { CallResult, Usage };

/** Options of {@link wrapOpenAI}. */
export interface WrapOpenAIOptions {
  /** Span name. @default "openai.chat.completions", "openai.responses" or "openai.embeddings" */
  name?: string;
  /** Single-turn metric collection that evaluates each call online. */
  metricCollection?: string;
  /**
   * The test case of the online evaluation. `true` (the default when `metricCollection` is set)
   * uses the last user message as `input` and the reply as `actualOutput`; a function builds it.
   */
  llmTestCase?: LlmTestCaseOption;
}

/** The three endpoints that reach a model; every helper of the SDK goes through their `create`. */
type Api = "chat" | "responses" | "embeddings";

const WRAPPED = Symbol.for("evaltrace.openai.wrapped");
const spanNames: Record<Api, string> = { chat: "openai.chat.completions", responses: "openai.responses", embeddings: "openai.embeddings" };

/**
 * Instruments an OpenAI client in place: every call that reaches a model is one llm span
 * (model, messages with tool calls and tool results, output, tool calls as `toolsCalled`, token
 * counts), whichever method made it: `chat.completions.create` / `.parse` / `.stream` /
 * `.runTools`, `responses.create` / `.parse` / `.stream`, `embeddings.create`, streamed or not;
 * a stream's span ends when the app has consumed it. The client stays the very same object: the
 * methods return the SDK's own promises (`.withResponse()`, `.asResponse()` work, and nothing
 * reads a body the app did not ask for), errors are the SDK's own at the same moment, `#private`
 * members and `withOptions()` work. Wrapping twice changes nothing.
 *
 * @example
 * import OpenAI from "openai";
 * import { wrapOpenAI } from "evaltrace/openai";
 * const openai = wrapOpenAI(new OpenAI(), { metricCollection: "answers" });
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  try {
    const c = client as { [WRAPPED]?: boolean; chat?: { completions?: object }; responses?: object; embeddings?: object; withOptions?: unknown };
    if (c[WRAPPED]) return client;
    const chat = instrument(c.chat?.completions, "chat", options);
    const responses = instrument(c.responses, "responses", options);
    const embeddings = instrument(c.embeddings, "embeddings", options);
    if (!chat && !responses && !embeddings) {
      reportUnexpectedClient("wrapOpenAI", "the client has no chat.completions.create, responses.create nor embeddings.create");
      return client;
    }
    const withOptions = c.withOptions;
    if (typeof withOptions === "function") {
      // A client derived with other options (openai 7) is instrumented the same way.
      Object.defineProperty(client, "withOptions", {
        configurable: true,
        writable: true,
        value(this: unknown, ...args: unknown[]) {
          return wrapOpenAI((withOptions as (...a: unknown[]) => object).apply(this, args), options);
        },
      });
    }
    Object.defineProperty(client, WRAPPED, { value: true });
  } catch (err) {
    // A client of an unexpected shape stays as it was.
    reportWrapFailure("wrapOpenAI", err);
  }
  return client;
}

/** Puts the span-making `create` on this resource object itself (its class is left alone); false when it has no `create`. */
function instrument(resource: object | undefined, api: Api, options: WrapOpenAIOptions): boolean {
  if (!resource || typeof resource !== "object") return false;
  const original = (resource as { create?: unknown }).create;
  if (typeof original !== "function") return false;
  if ((original as { [WRAPPED]?: boolean })[WRAPPED]) return true;
  const create = function create(this: unknown, ...args: unknown[]): unknown {
    const span = startCall(api, args[0], args[1], options);
    if (!span) return (original as (...a: unknown[]) => unknown).apply(this, args);
    let result: unknown;
    try {
      result = context.with(span.span.context, () => (original as (...a: unknown[]) => unknown).apply(this, args));
    } catch (err) {
      span.span.fail(err);
      throw err;
    }
    observeCall(result, span);
    return result;
  };
  Object.defineProperty(create, WRAPPED, { value: true });
  Object.defineProperty(resource, "create", { configurable: true, writable: true, value: create });
  return true;
}

interface Call {
  span: ManualSpan;
  api: Api;
  input: Message[];
  streaming: boolean;
  options: WrapOpenAIOptions;
  /** The request's own abort signal (`{ signal }` request option), if any. */
  signal?: AbortSignal;
}

/** Opens the call's span; never throws (a request the SDK will refuse is the SDK's to refuse). */
function startCall(api: Api, params: unknown, requestOptions: unknown, options: WrapOpenAIOptions): Call | undefined {
  try {
    const p = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
    const input = api === "chat" ? chatInput(p) : api === "responses" ? responsesInput(p) : embeddingInput(p);
    const span = openSpan(options.name ?? spanNames[api], "llm", { model: p.model, provider: "OpenAI" }, input);
    if (!span) return undefined;
    span.setIntegration("OpenAI");
    if (options.metricCollection) span.set({ metricCollection: options.metricCollection });
    const signal = (requestOptions as { signal?: unknown } | undefined)?.signal;
    return { span, api, input, streaming: p.stream === true, options, ...(typeof AbortSignal !== "undefined" && signal instanceof AbortSignal ? { signal } : {}) };
  } catch {
    return undefined;
  }
}

type PromiseParts = { parseResponse?: unknown; responsePromise?: unknown; asResponse?: unknown; _thenUnwrap?: unknown };

/** How a call ends, once: its result (a parsed response, or a stream to tap), or its failure. */
interface Outcome {
  see(value: unknown): void;
  end(r: CallResult): void;
  fail(err: unknown): void;
}

function outcomeOf(call: Call): Outcome {
  let ended = false;
  let seen = false;
  const end = (r: CallResult) => {
    if (ended) return;
    ended = true;
    finish(call, r);
  };
  const fail = (err: unknown) => {
    if (ended) return;
    ended = true;
    call.span.fail(err);
  };
  const cut = (r: CallResult, why: string) => {
    if (ended) return;
    ended = true;
    call.span.set(resultFields(r));
    call.span.fail(incomplete(why), r.output === "" ? undefined : r.output);
  };
  const see = (value: unknown) => {
    if (seen || ended) return;
    seen = true;
    try {
      if (call.streaming && isAsyncIterable(value)) tapOpenAIStream(value, call.api, { end, fail, cut }, call.span, call.signal);
      else end(readResult(call.api, value));
    } catch (err) {
      fail(err);
    }
  };
  return { see, end, fail };
}

/**
 * Watches the SDK's own promise without changing it or reading anything the app does not: the
 * parsed result is seen where the SDK parses it (`parseResponse`, used by `then`, `withResponse`
 * and, in openai 4 to 6, by every helper's `_thenUnwrap`; openai 7 gives each promise its own
 * `_thenUnwrap` that parses without it, so the helpers' transforms are watched too), failures on
 * the raw response promise, and a call whose app only takes the raw `Response` (`asResponse`)
 * ends without output.
 */
function observeCall(result: unknown, call: Call): void {
  const outcome = outcomeOf(call);
  try {
    const p = result as PromiseParts & object;
    watchPromise(p, call, outcome);
    if (p?.responsePromise && typeof (p.responsePromise as Promise<unknown>).then === "function") {
      (p.responsePromise as Promise<unknown>).then(undefined, outcome.fail);
    }
    if (typeof p?.parseResponse !== "function" && typeof (p as { then?: unknown })?.then === "function") {
      // Not the SDK's APIPromise (an older or mocked SDK): observe the settlement on the side.
      void (p as Promise<unknown>).then(outcome.see, outcome.fail);
    }
  } catch (err) {
    outcome.fail(err);
  }
}

/**
 * Puts the watchers on one APIPromise: the call's own, or one a helper derived from it with
 * `_thenUnwrap` (its value is the helper's, so there only a failure counts: the call's own
 * result was seen by the transform).
 */
function watchPromise(p: PromiseParts & object, call: Call, outcome: Outcome): void {
  if (!p || typeof p !== "object") return;
  if (typeof p.parseResponse === "function") {
    const parseResponse = p.parseResponse as (...a: unknown[]) => unknown;
    Object.defineProperty(p, "parseResponse", {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        const parsed = parseResponse.apply(this, args);
        void Promise.resolve(parsed).then(outcome.see, outcome.fail);
        return parsed;
      },
    });
  }
  if (typeof p._thenUnwrap === "function") {
    const thenUnwrap = p._thenUnwrap as (...a: unknown[]) => unknown;
    Object.defineProperty(p, "_thenUnwrap", {
      configurable: true,
      writable: true,
      value(this: unknown, transform: unknown, ...rest: unknown[]) {
        const watched =
          typeof transform === "function"
            ? function (this: unknown, data: unknown, ...more: unknown[]) {
                try {
                  outcome.see(data);
                } catch {
                  // Seeing the result never changes what the helper makes of it.
                }
                return (transform as (...a: unknown[]) => unknown).call(this, data, ...more);
              }
            : transform;
        const derived = thenUnwrap.call(this, watched, ...rest);
        try {
          watchPromise(derived as PromiseParts & object, call, outcome);
        } catch {
          // The derived promise is the SDK's as it is.
        }
        return derived;
      },
    });
  }
  if (typeof p.asResponse === "function") {
    const asResponse = p.asResponse as (...a: unknown[]) => Promise<unknown>;
    Object.defineProperty(p, "asResponse", {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        const response = asResponse.apply(this, args);
        // The app reads the body itself: the span ends with what the headers say.
        void Promise.resolve(response).then(() => setTimeout(() => outcome.end({ output: "", toolCalls: [] }), 0), outcome.fail);
        return response;
      },
    });
  }
}

/** A result's model, token counts and tool calls as span fields. */
function resultFields(r: CallResult): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (typeof r.model === "string") fields.model = r.model;
  const inTokens = r.usage?.prompt_tokens ?? r.usage?.input_tokens;
  const outTokens = r.usage?.completion_tokens ?? r.usage?.output_tokens;
  if (inTokens !== undefined) fields.inputTokenCount = inTokens;
  if (outTokens !== undefined) fields.outputTokenCount = outTokens;
  const calls = toolsCalled(r.toolCalls);
  if (calls) fields.toolsCalled = calls;
  return fields;
}

function finish(call: Call, r: CallResult): void {
  const fields = resultFields(r);
  const testCase = buildTestCase(call.options.llmTestCase, call.options.metricCollection, call.input, r.output);
  if (testCase) fields.llmTestCase = testCase;
  call.span.set(fields);
  call.span.end(r.output);
}

/** Chat messages as the service reads them: tool calls and tool results included. */
function chatInput(params: Record<string, unknown>): Message[] {
  return readConversation((Array.isArray(params.messages) ? params.messages : []) as JsonValue)?.messages ?? [];
}

/** A Responses request: `instructions` as the system message, then `input` (text or items; calls and results linked by their `call_id`). */
function responsesInput(params: Record<string, unknown>): Message[] {
  const out: Message[] = [];
  if (typeof params.instructions === "string") out.push({ role: "system", content: params.instructions });
  const input = params.input;
  if (typeof input === "string") out.push({ role: "user", content: input });
  else if (Array.isArray(input)) out.push(...(readConversation(input as JsonValue)?.messages ?? []));
  return out;
}

function embeddingInput(params: Record<string, unknown>): Message[] {
  const input = params.input;
  const texts = Array.isArray(input) ? input : [input];
  return [{ role: "user", content: texts.map((t) => (typeof t === "string" ? t : messageText(t))).join("\n") }];
}

/** What a parsed response says: text, tool calls, model and usage, for each endpoint. */
function readResult(api: Api, value: unknown): CallResult {
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

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return v !== null && typeof v === "object" && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}
