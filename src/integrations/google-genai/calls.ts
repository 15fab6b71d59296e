import { type Context, context } from "@opentelemetry/api";
import { startAfc } from "./afc.js";
import { fromResponses, inputMessages, modelName } from "./content.js";
import type { State } from "./options.js";
import { type Ends, tapGenerator } from "./stream.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { cutCall, finishCall, incomplete, isObject, type Message, owningCall, quietly } from "../kit/model-call.js";

type Fn = (...args: unknown[]) => unknown;

/**
 * Runs one model call (a promise of a reply, or of a generator of chunks) inside an llm span, a
 * child of `parent` (the current context by default).
 */
export function modelCall(self: unknown, original: Fn, args: unknown[], streamed: boolean, state: State, parent?: Context): unknown {
  let span: ManualSpan | undefined;
  let input: Message[] = [];
  try {
    const p = isObject(args[0]) ? args[0] : {};
    input = inputMessages(p);
    span = openSpan(streamed ? "gemini.generateContentStream" : "gemini.generateContent", "llm", { model: modelName(p.model), provider: "Gemini" }, input, parent);
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
  return traced(open, owningCall(open.context), () => original.apply(self, args), streamed, { finish, cut, signal: abortSignalOf(args[0]) }, true);
}

/**
 * Runs an automatic-function-calling call inside its agent span (see `afc.ts`): a stream's
 * (`processAfcStream`, whose generator runs the SDK's loop as the app reads it, stepped in the
 * run's context); the SDK's requests and tool calls in it record their own spans. The agent span
 * ends with the final answer: the reply, or the chunks after the last function responses of a
 * stream. (A non-streamed run is watched step by step: `afc-loop.ts`.)
 */
export function afcCall(self: unknown, original: Fn, args: unknown[], streamed: boolean): unknown {
  const run = quietlyValue(() => startAfc(args[0] as Record<string, unknown>, inputMessages(args[0] as Record<string, unknown>)));
  if (!run) return original.apply(self, args);
  const finish = (chunks: unknown[]) => run.end(fromResponses(streamed ? lastTurn(chunks) : chunks).output);
  const cut = (chunks: unknown[], why: string) => run.span.fail(incomplete(why), fromResponses(lastTurn(chunks)).output || undefined);
  return traced(run.span, run.ctx, () => original.apply(self, args), streamed, { finish, cut, signal: abortSignalOf(args[0]) }, false);
}

/** The call's `config.abortSignal`, if any. */
function abortSignalOf(params: unknown): AbortSignal | undefined {
  const signal = isObject(params) && isObject(params.config) ? params.config.abortSignal : undefined;
  return typeof AbortSignal !== "undefined" && signal instanceof AbortSignal ? signal : undefined;
}

/**
 * Runs `call` in `ctx` and returns its own result (for a stream, a promise that settles as the
 * SDK's does, of the tapped generator: `stream.ts`); when it settles, `finish` gets the reply (or,
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
  if (streamed && result && typeof (result as Promise<unknown>).then === "function") {
    // The generator the app reads is the tapped one (a Proxy of the SDK's that reads as it does);
    // the promise settles as the SDK's does, with its own error.
    return (result as Promise<unknown>).then(
      (value) => {
        let out = value;
        quietly(() => {
          if (isObject(value) && typeof value.next === "function") out = tapGenerator(value, span, ends, ctx, timed);
          else ends.finish([value]);
        });
        return out;
      },
      (err: unknown) => {
        span.fail(err);
        throw err;
      },
    );
  }
  quietly(() =>
    Promise.resolve(result).then(
      (value) => quietly(() => ends.finish([value])),
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
