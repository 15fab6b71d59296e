import type { FlushResult } from "./export/trace-exporter.js";
import type { TimerHandle } from "./clock.js";
import { currentRuntime, type SdkStats } from "./runtime.js";

const nothing: FlushResult = { ok: true, delivered: 0, notDelivered: [], pending: [], timedOut: false };

/**
 * Sends every trace finished so far, with its late updates and offline evaluations, and
 * resolves when all of it was delivered or given up (listed in the result), or when
 * `timeoutMillis` passed. Never rejects.
 * @param timeoutMillis @default the `flushTimeoutMillis` option (30 s)
 */
export async function flush(timeoutMillis?: number): Promise<FlushResult> {
  const rt = currentRuntime();
  if (!rt) return nothing;
  return rt.exporter.flush(timeoutMillis);
}

/** Flushes (bounded by `shutdownTimeoutMillis`), then stops recording. Idempotent; never rejects. */
export async function shutdown(timeoutMillis?: number): Promise<FlushResult> {
  const rt = currentRuntime();
  if (!rt) return nothing;
  return rt.shutdown(timeoutMillis);
}

/** Counters of delivered, retried, failed, dropped and pending work, to alert on loss. */
export function stats(): SdkStats | undefined {
  return currentRuntime()?.stats();
}

/** A platform's way to keep a function alive after its response: `ctx.waitUntil` on Cloudflare and Vercel. */
export type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * Request-scoped delivery for serverless and edge handlers: waits until every trace running now
 * has ended (work the handler left running after its response included), then flushes. Pass the
 * platform's `waitUntil` (Cloudflare's `ctx.waitUntil`, Vercel's `waitUntil` from
 * `@vercel/functions`) and the handler can return at once; without one, await the result before
 * the function is frozen. Never rejects.
 * @param timeoutMillis @default the `flushTimeoutMillis` option (30 s), for the wait and the flush together
 *
 * @example
 * export default { async fetch(req, env, ctx) { const res = await handle(req); deliver(ctx.waitUntil.bind(ctx)); return res; } };
 */
export function deliver(waitUntil?: WaitUntil, timeoutMillis?: number): Promise<FlushResult> {
  const rt = currentRuntime();
  if (!rt) return Promise.resolve(nothing);
  const budget = timeoutMillis ?? rt.options.flushTimeoutMillis;
  const clock = rt.options.clock;
  const started = clock.now();
  const done = (async () => {
    let timer: TimerHandle | undefined;
    await Promise.race([
      rt.assembler.whenIdle(),
      new Promise<void>((resolve) => {
        timer = clock.setTimeout(resolve, budget);
      }),
    ]);
    if (timer !== undefined) clock.clearTimeout(timer);
    return rt.exporter.flush(Math.max(0, budget - (clock.now() - started)));
  })().catch(() => nothing);
  try {
    waitUntil?.(done);
  } catch {
    // A platform that refuses: the caller still has the promise.
  }
  return done;
}
