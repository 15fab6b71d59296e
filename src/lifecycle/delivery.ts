import type { FlushResult } from "../export/trace-exporter.js";
import { currentRuntime, ensureRuntime, type SdkStats } from "../runtime.js";

const nothing = (): FlushResult => ({ ok: true, delivered: 0, notDelivered: [], pending: [], timedOut: false });

/**
 * Sends every trace finished so far, with its late updates and offline evaluations, and
 * resolves when all of it was delivered or given up (listed in the result), or when
 * `timeoutMillis` passed. Keeps the process alive while it waits. Never rejects.
 * @param timeoutMillis @default the `flushTimeoutMillis` option (30 s)
 */
export async function flush(timeoutMillis?: number): Promise<FlushResult> {
  const rt = currentRuntime();
  if (!rt) return nothing();
  return rt.exporter.flush(timeoutMillis);
}

/**
 * Stops recording new traces, gives the running ones half of `timeoutMillis` to end (those
 * still running are then sent with their open spans marked), delivers everything, and closes
 * the connections. The result lists every trace not delivered. Idempotent; never rejects.
 * @param timeoutMillis @default the `shutdownTimeoutMillis` option (5 s)
 */
export async function shutdown(timeoutMillis?: number): Promise<FlushResult> {
  const rt = currentRuntime();
  if (!rt) return nothing();
  return rt.shutdown(timeoutMillis);
}

const zero: Omit<SdkStats, "enabled"> = {
  tracesDelivered: 0,
  tracesFailed: 0,
  tracesDropped: 0,
  retries: 0,
  updatesDelivered: 0,
  updatesFailed: 0,
  evaluationsDelivered: 0,
  evaluationsFailed: 0,
  requests: 0,
  bytesSent: 0,
  queued: 0,
  inFlight: 0,
  tracesNotRecorded: 0,
  spansDropped: 0,
  tracesForceEnded: 0,
  spansForceEnded: 0,
  spansEndedAfterForceEnd: 0,
  openTraces: 0,
};

/**
 * Counters of delivered, retried, failed, dropped and pending work, to alert on loss, and
 * whether tracing records at all (`enabled`). Always answers, configured or not.
 */
export function stats(): SdkStats {
  try {
    const rt = ensureRuntime();
    if (rt) return rt.stats();
  } catch {
    // Fall through: counters of nothing.
  }
  return { ...zero, enabled: false };
}

/** A platform's way to keep a function alive after its response: `ctx.waitUntil` on Cloudflare and Vercel. */
export type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * Request-scoped delivery for serverless and edge handlers: waits until every span open at the
 * time of the call has ended (work the handler left running after its response included), then
 * flushes. Traces still running when the budget is half spent are sent as they stand, their
 * open spans marked `evaltrace.unfinished`: the instance may be frozen right after. Pass the
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
  if (!rt) return Promise.resolve(nothing());
  const budget = timeoutMillis ?? rt.options.flushTimeoutMillis;
  const clock = rt.options.clock;
  const started = clock.now();
  const done = (async () => {
    const waitedFor = [...rt.assembler.all()].filter((r) => r.open > 0);
    await rt.assembler.whenSpansEnded(waitedFor, budget / 2);
    rt.assembler.forceEndAll("deliver", waitedFor);
    return rt.exporter.flush(Math.max(0, budget - (clock.now() - started)));
  })().catch(() => nothing());
  try {
    waitUntil?.(done);
  } catch {
    // A platform that refuses: the caller still has the promise.
  }
  return done;
}
