import { type Context, context } from "@opentelemetry/api";
import type { ManualSpan } from "../../tracing/manual-span.js";
import { isObject, tapIterator } from "../kit/model-call.js";
import { abortedWhy, HeldStream, STOPPED_READING } from "../kit/stream-ending.js";
import { lookalike, proxyWith } from "../kit/lookalike.js";

type Fn = (...args: unknown[]) => unknown;

/** How a call ends: whole (`finish`), or a stream cut short (`cut`, with the chunks so far); the call's abort signal. */
export interface Ends {
  finish(chunks: unknown[]): void;
  cut(chunks: unknown[], why: string): void;
  signal: AbortSignal | undefined;
}

/**
 * Taps the SDK's async generator and returns the generator the app gets: a Proxy of it whose
 * `next` / `return` / `throw` (which `for await` reads through) are the tapped ones, each stepped
 * in `ctx`. The SDK's generator is left as it is (its own `next`... are the SDK's: a downlevelled
 * generator has them as own properties), and the Proxy reads as it does (`util.inspect`, own
 * properties, prototype). Seen through it,: the chunks fold into the reply; the span ends when the
 * generator is done, or ERRORED when it throws, or when it does not reach its last chunk:
 * aborted (`config.abortSignal`: `aborted: <reason>`), left by the app (`break`), ended without
 * a finish reason, or never read by the time `deliver()` sends it; cut short, it keeps the
 * chunks so far (text, usage). Function responses (an AFC stream's `user` chunk) open a new
 * turn: its end is still to come.
 */
export function tapGenerator(gen: Record<string, unknown>, span: ManualSpan, ends: Ends, ctx: Context, timed: boolean): object {
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
  const steps: Record<PropertyKey, unknown> = { next: lookalike(gen.next, tapped.next as Fn) };
  if (tapped.return) steps.return = lookalike(gen.return, tapped.return as Fn);
  if (tapped.throw) steps.throw = lookalike(gen.throw, tapped.throw as Fn);
  return proxyWith(gen, steps);
}
