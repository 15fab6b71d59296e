import { type Context, context } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { afcStep, define, startAfc, usesAfc } from "./afc.js";
import { fromResponses, inputMessages, modelName } from "./content.js";
import { cutCall, finishCall, incomplete, isObject, type Message, type ModelWrapOptions, quietly, tapIterator } from "../kit/model-call.js";
import { abortedWhy, HeldStream, STOPPED_READING } from "../kit/stream-ending.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

/** Options of {@link wrapGoogleGenAI}. */
export interface WrapGoogleGenAIOptions extends ModelWrapOptions {}

/** Where a wrapped `models` module keeps its state (shared by every copy of evaltrace). */
const WRAPPED = Symbol.for("evaltrace.google-genai.wrapped");

type Fn = (...args: unknown[]) => unknown;
type State = { options: WrapGoogleGenAIOptions };

/**
 * Instruments a Google GenAI client (`@google/genai`) in place and returns it: every
 * `models.generateContent` and `models.generateContentStream` (and so every `chats` message)
 * becomes one llm span: model, provider `Gemini`, the system instruction and contents as plain
 * text (function calls and function responses included), the reply's text, its function calls as
 * `toolsCalled`, token counts, and errors. A stream's span ends when the stream ends; one that
 * fails or is left before its last chunk is recorded as ERRORED.
 *
 * A call with automatic function calling (callable tools in `config.tools`, such as
 * `mcpToTool(client)`: the SDK calls the tools and the model again, in that one call) is an agent
 * span `gemini.automaticFunctionCalling` (the call's input, the final answer, `availableTools`)
 * holding one llm span per model request, each with its own input, output, tokens and
 * `toolsCalled`, and a tool span per function call a callable tool answered, in the order they ran.
 *
 * The SDK assigns these methods on each `models` object, so the wrapper patches that object (not
 * the class). The promises, responses, generators and errors the app gets are the SDK's own, and
 * the reply's `text` getter is never read (it warns on a function-call reply). Wrapping twice is
 * wrapping once (the latest options apply).
 *
 * @example
 * import { GoogleGenAI } from "@google/genai";
 * import { wrapGoogleGenAI } from "evaltrace/google-genai";
 * const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey }), { metricCollection: "answers" });
 */
export function wrapGoogleGenAI<T extends object>(client: T, options: WrapGoogleGenAIOptions = {}): T {
  try {
    const models = (client as { models?: unknown }).models;
    if (!isObject(models)) {
      reportUnexpectedClient("wrapGoogleGenAI", "the client has no models");
      return client;
    }
    const existing = models[WRAPPED] as State | undefined;
    if (existing) {
      existing.options = options;
      return client;
    }
    const state: State = { options };
    const generate = models.generateContent;
    const stream = models.generateContentStream;
    // One model request each (prototype methods the SDK reaches through `this`): automatic
    // function calling calls them once per request, directly or through continuation hops.
    const request = models.generateContentInternal;
    const streamRequest = models.generateContentStreamInternal;
    if (typeof generate !== "function" && typeof stream !== "function") {
      reportUnexpectedClient("wrapGoogleGenAI", "the client has no models.generateContent nor models.generateContentStream");
      return client;
    }
    // The SDK's own methods are writable, enumerable instance fields: `define` keeps them so.
    define(models, WRAPPED, state);
    if (typeof generate === "function") define(models, "generateContent", patched(models, generate as Fn, false, state));
    if (typeof stream === "function") define(models, "generateContentStream", patched(models, stream as Fn, true, state));
    if (typeof request === "function") define(models, "generateContentInternal", afcRequest(models, request as Fn, false, state));
    if (typeof streamRequest === "function") define(models, "generateContentStreamInternal", afcRequest(models, streamRequest as Fn, true, state));
  } catch (err) {
    // A client we cannot read is left as it is.
    reportWrapFailure("wrapGoogleGenAI", err);
  }
  return client;
}

/** The app's call: an llm span, or, with automatic function calling, the run's agent span. */
function patched(models: object, original: Fn, streamed: boolean, state: State): Fn {
  return function (this: unknown, ...args: unknown[]) {
    const self = this ?? models;
    let afc = false;
    try {
      afc = isObject(args[0]) && usesAfc(args[0]);
    } catch {
      afc = false;
    }
    return afc ? afcCall(self, original, args, streamed) : modelCall(self, original, args, streamed, state);
  };
}

/** One model request inside an AFC run's loop: an llm span of its own; anywhere else the SDK's own. */
function afcRequest(models: object, original: Fn, streamed: boolean, state: State): Fn {
  return function (this: unknown, ...args: unknown[]) {
    const self = this ?? models;
    let step = false;
    try {
      step = afcStep();
    } catch {
      step = false;
    }
    return step ? modelCall(self, original, args, streamed, state) : original.apply(self, args);
  };
}

/** Runs one model call (a promise of a reply, or of a generator of chunks) inside an llm span. */
function modelCall(self: unknown, original: Fn, args: unknown[], streamed: boolean, state: State): unknown {
  let span: ManualSpan | undefined;
  let input: Message[] = [];
  try {
    const p = isObject(args[0]) ? args[0] : {};
    input = inputMessages(p);
    span = openSpan(streamed ? "gemini.generateContentStream" : "gemini.generateContent", "llm", { model: modelName(p.model), provider: "Gemini" }, input);
    if (span) {
      span.setIntegration("Google GenAI");
      if (state.options.metricCollection) span.set({ metricCollection: state.options.metricCollection });
    }
  } catch {
    span = undefined;
  }
  if (!span) return original.apply(self, args);
  const open = span;
  const finish = (chunks: unknown[]) => finishCall(open, state.options, input, fromResponses(chunks));
  const cut = (chunks: unknown[], why: string) => cutCall(open, fromResponses(chunks), why);
  return traced(open, open.context, () => original.apply(self, args), streamed, { finish, cut, signal: abortSignalOf(args[0]) }, true);
}

/**
 * Runs an automatic-function-calling call inside its agent span (see `google-genai-afc.ts`); the
 * SDK's requests and tool calls in it record their own spans. The agent span ends with the final
 * answer: the reply, or the chunks after the last function responses of a stream.
 */
function afcCall(self: unknown, original: Fn, args: unknown[], streamed: boolean): unknown {
  const run = quietlyValue(() => startAfc(args[0] as Record<string, unknown>, inputMessages(args[0] as Record<string, unknown>)));
  if (!run) return original.apply(self, args);
  const finish = (chunks: unknown[]) => run.end(fromResponses(streamed ? lastTurn(chunks) : chunks).output);
  const cut = (chunks: unknown[], why: string) => run.span.fail(incomplete(why), fromResponses(lastTurn(chunks)).output || undefined);
  return traced(run.span, run.ctx, () => original.apply(self, args), streamed, { finish, cut, signal: abortSignalOf(args[0]) }, false);
}

/** How a call ends: whole (`finish`), or a stream cut short (`cut`, with the chunks so far); the call's abort signal. */
interface Ends {
  finish(chunks: unknown[]): void;
  cut(chunks: unknown[], why: string): void;
  signal: AbortSignal | undefined;
}

/** The call's `config.abortSignal`, if any. */
function abortSignalOf(params: unknown): AbortSignal | undefined {
  const signal = isObject(params) && isObject(params.config) ? params.config.abortSignal : undefined;
  return typeof AbortSignal !== "undefined" && signal instanceof AbortSignal ? signal : undefined;
}

/**
 * Runs `call` in `ctx` and returns its own result; when it settles, `finish` gets the reply (or,
 * for a stream, the chunks the app read, the span ending with the stream) and a rejection fails
 * `span` (`timed`: a stream's time to first token and rate go in its metadata). A stream's
 * generator is stepped in `ctx`, so what the SDK does between chunks (the next
 * request of automatic function calling, its tool calls) is inside the span.
 */
function traced(span: ManualSpan, ctx: Context, call: () => unknown, streamed: boolean, ends: Ends, timed: boolean): unknown {
  let result: unknown;
  try {
    result = context.with(ctx, call);
  } catch (err) {
    span.fail(err);
    throw err;
  }
  quietly(() =>
    Promise.resolve(result).then(
      (value) =>
        quietly(() => {
          if (streamed && isObject(value) && typeof value.next === "function") tapGenerator(value, span, ends, ctx, timed);
          else ends.finish([value]);
        }),
      (err: unknown) => span.fail(err),
    ),
  );
  // The SDK's own promise, so the app sees exactly what the raw client gives.
  return result;
}

/** The chunks of a stream's last model turn: those after the last chunk of function responses (role `user`). */
function lastTurn(chunks: unknown[]): unknown[] {
  let at = 0;
  chunks.forEach((chunk, i) => {
    const c = isObject(chunk) && Array.isArray(chunk.candidates) && isObject(chunk.candidates[0]) ? chunk.candidates[0] : undefined;
    if (c && isObject(c.content) && c.content.role === "user") at = i + 1;
  });
  return chunks.slice(at);
}

function quietlyValue<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/**
 * Taps the SDK's async generator in place (its own `next` / `return` / `throw`, which `for await`
 * reads through, each stepped in `ctx`): the chunks fold into the reply; the span ends when the
 * generator is done, or ERRORED when it throws, or when it does not reach its last chunk:
 * aborted (`config.abortSignal`: `aborted: <reason>`), left by the app (`break`), ended without
 * a finish reason, or never read by the time `deliver()` sends it; cut short, it keeps the
 * chunks so far (text, usage). Function responses (an AFC stream's `user` chunk) open a new
 * turn: its end is still to come.
 */
function tapGenerator(gen: Record<string, unknown>, span: ManualSpan, ends: Ends, ctx: Context, timed: boolean): void {
  const chunks: unknown[] = [];
  let finished = false;
  const step = (method: unknown) => (...args: unknown[]) => context.with(ctx, () => (method as Fn).apply(gen, args));
  const bound: AsyncIterator<unknown> = { next: step(gen.next) as AsyncIterator<unknown>["next"] };
  if (typeof gen.return === "function") bound.return = step(gen.return) as AsyncIterator<unknown>["return"];
  if (typeof gen.throw === "function") bound.throw = step(gen.throw) as AsyncIterator<unknown>["throw"];
  const held = new HeldStream(span, (why) => ends.cut(chunks, why));
  const ended = (early: boolean) => {
    if (finished) held.settle(() => ends.finish(chunks));
    else if (ends.signal?.aborted) held.cutShort(abortedWhy(ends.signal.reason));
    else held.cutShort(early ? STOPPED_READING : "stream ended without a finish reason");
  };
  const tapped = tapIterator(bound, {
    // A chunk with parts carries tokens (a usage-only last chunk does not).
    ...(timed ? { timing: { span, content: (chunk: unknown) => isObject(chunk) && Array.isArray(chunk.candidates) && isObject(chunk.candidates[0]) && isObject(chunk.candidates[0].content) && Array.isArray(chunk.candidates[0].content.parts) && chunk.candidates[0].content.parts.length > 0 } } : {}),
    reads: held,
    fold(chunk) {
      chunks.push(chunk);
      const c = isObject(chunk) && Array.isArray(chunk.candidates) && isObject(chunk.candidates[0]) ? chunk.candidates[0] : undefined;
      if (c?.finishReason) finished = true;
      if (isObject(c?.content) && c.content.role === "user") finished = false;
    },
    done: () => ended(false),
    // An abort surfaces as the SDK's error: recorded as the abort, with what came before it.
    failed: (err) => (ends.signal?.aborted ? held.cutShort(abortedWhy(ends.signal.reason)) : held.settle(() => span.fail(err))),
    abandoned: () => ended(true),
  });
  define(gen, "next", tapped.next);
  if (tapped.return) define(gen, "return", tapped.return);
  if (tapped.throw) define(gen, "throw", tapped.throw);
}
