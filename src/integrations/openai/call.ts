import { toolsCalled } from "../../semconv/messages.js";
import type { Message } from "../../semconv/types.js";
import { buildTestCase } from "../../spans/test-case.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { embeddingSpan } from "../kit/embedding-call.js";
import { incomplete } from "../kit/model-call.js";
import { type Api, chatInput, embeddingInput, readResult, responsesInput } from "./content.js";
import type { WrapOpenAIOptions } from "./options.js";
import { type CallResult, tapOpenAIStream } from "./stream.js";

const spanNames: Record<Api, string> = { chat: "openai.chat.completions", responses: "openai.responses", embeddings: "openai.embeddings" };

/** One call in flight: its span, endpoint, input and options, and the request's abort signal. */
export interface Call {
  span: ManualSpan;
  api: Api;
  input: Message[];
  streaming: boolean;
  options: WrapOpenAIOptions;
  /** The request's own abort signal (`{ signal }` request option), if any. */
  signal?: AbortSignal;
}

/** Opens the call's span; never throws (a request the SDK will refuse is the SDK's to refuse). */
export function startCall(api: Api, params: unknown, requestOptions: unknown, options: WrapOpenAIOptions): Call | undefined {
  try {
    const p = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
    const input = api === "chat" ? chatInput(p) : api === "responses" ? responsesInput(p) : embeddingInput(p);
    const name = options.name ?? spanNames[api];
    const fields = { model: p.model, provider: "OpenAI" };
    // An embedding request inside a framework's embedding call (LangChain) takes over its span.
    const span = api === "embeddings" ? embeddingSpan(name, fields, input, () => openSpan(name, "llm", fields, input)) : openSpan(name, "llm", fields, input);
    if (!span) return undefined;
    span.setIntegration("OpenAI");
    if (options.metricCollection) span.set({ metricCollection: options.metricCollection });
    const signal = (requestOptions as { signal?: unknown } | undefined)?.signal;
    return { span, api, input, streaming: p.stream === true, options, ...(typeof AbortSignal !== "undefined" && signal instanceof AbortSignal ? { signal } : {}) };
  } catch {
    return undefined;
  }
}

/** How a call ends, once: its result (a parsed response, or a stream to tap), or its failure. */
export interface Outcome {
  see(value: unknown): void;
  end(r: CallResult): void;
  fail(err: unknown): void;
}

export function outcomeOf(call: Call): Outcome {
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

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return v !== null && typeof v === "object" && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}
