import { type FlushResult, noWorkYet } from "../export/types.js";
import { resolveOptions } from "../config/options.js";
import { internalErrorCount } from "../util/internal-errors.js";
import { netSpanCount } from "../util/net-spans.js";
import type { SdkStats } from "../runtime/runtime.js";
import { allRuntimes } from "../runtime/registry.js";
import { currentRuntime } from "../runtime/configure.js";
import { currentObservedSpan } from "../tracing/context.js";
import { checkTimeoutArg, checkWaitUntilArg } from "./timeout-arg.js";

const nothing = (): FlushResult => ({ ok: true, delivered: 0, notDelivered: [], pending: [], timedOut: false });

/**
 * Sends every trace finished so far, with its late updates and offline evaluations, and
 * resolves when all of it was delivered or given up (listed in the result), or when
 * `timeoutMillis` passed. Keeps the process alive while it waits. Never rejects.
 * @param timeoutMillis @default the `flushTimeoutMillis` option (30 s)
 * @throws TypeError when `timeoutMillis` is not a number >= 0.
 */
export function flush(timeoutMillis?: number): Promise<FlushResult> {
  checkTimeoutArg("flush", timeoutMillis);
  return merged(() => allRuntimes().map((rt) => rt.flush(timeoutMillis)));
}

/**
 * Stops recording new traces, gives the running ones half of `timeoutMillis` to end (those
 * still running are then sent with their open spans marked), delivers everything, and closes
 * the connections. The result lists every trace not delivered. Idempotent; never rejects.
 * @param timeoutMillis @default the `shutdownTimeoutMillis` option (5 s)
 * @throws TypeError when `timeoutMillis` is not a number >= 0.
 */
export function shutdown(timeoutMillis?: number): Promise<FlushResult> {
  checkTimeoutArg("shutdown", timeoutMillis);
  return merged(() => allRuntimes().map((rt) => rt.shutdown(timeoutMillis)));
}

/** One result for several runtimes (the current one and any a `configure()` replaced). */
async function merged(start: Promise<FlushResult>[] | (() => Promise<FlushResult>[])): Promise<FlushResult> {
  const results = typeof start === "function" ? start() : start;
  if (results.length === 1) return results[0]!;
  const all = await Promise.all(results);
  const out = nothing();
  for (const r of all) {
    out.ok &&= r.ok;
    out.delivered += r.delivered;
    out.notDelivered.push(...r.notDelivered);
    out.pending.push(...r.pending);
    out.timedOut ||= r.timedOut;
    if (r.spooled !== undefined) out.spooled = (out.spooled ?? 0) + r.spooled;
  }
  return out;
}

const zero: Omit<SdkStats, "enabled"> = {
  ...noWorkYet(),
  queued: 0,
  inFlight: 0,
  spooled: 0,
  spoolBytes: 0,
  spoolMode: "none",
  tracesOnlyInMemory: 0,
  tracesNotRecorded: 0,
  spansDropped: 0,
  tracesForceEnded: 0,
  spansForceEnded: 0,
  spansEndedAfterForceEnd: 0,
  openTraces: 0,
  tracesDiscarded: 0,
  spansDiscarded: 0,
  retrieverEmbeddersDefaulted: 0,
  spansWithoutTestCase: 0,
  tracesAbortedByPrerender: 0,
  modelCallsFolded: 0,
  internalErrors: 0,
  netSpans: 0,
};

/**
 * Counters of delivered, retried, failed, dropped and pending work, to alert on loss, and
 * whether tracing records at all (`enabled`). Always answers, configured or not.
 */
export function stats(): SdkStats {
  try {
    const rt = currentRuntime();
    if (rt) return rt.stats();
    // Nothing recorded yet: whether the first span would be, without making a runtime for it.
    const options = resolveOptions({});
    return { ...zero, internalErrors: internalErrorCount(), netSpans: netSpanCount(), enabled: options.enabled && options.apiKey !== undefined };
  } catch {
    return { ...zero, enabled: false };
  }
}

/** A platform's way to keep a function alive after its response: `ctx.waitUntil` on Cloudflare and Vercel. */
export type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * Request-scoped delivery for serverless and edge handlers: waits until every span open at the
 * time of the call has ended (work the handler left running after its response included), then
 * flushes. When half the budget is spent, work still running in traces whose root has ended
 * (and in the caller's own trace) is sent as it stands, its open spans marked
 * `evaltrace.unfinished`: the instance may be frozen right after. A trace whose root still
 * runs (another request served by the same instance) is left to its own `deliver()`. Pass the
 * platform's `waitUntil` (Cloudflare's `ctx.waitUntil`, Vercel's `waitUntil` from
 * `@vercel/functions`) and the handler can return at once; without one, await the result before
 * the function is frozen. Never rejects.
 * @param timeoutMillis @default the `flushTimeoutMillis` option (30 s), for the wait and the flush together
 * @throws TypeError when `waitUntil` is not a function or `timeoutMillis` not a number >= 0.
 *
 * @example
 * export default { async fetch(req, env, ctx) { const res = await handle(req); deliver(ctx.waitUntil.bind(ctx)); return res; } };
 */
export function deliver(waitUntil?: WaitUntil, timeoutMillis?: number): Promise<FlushResult> {
  checkWaitUntilArg(waitUntil);
  checkTimeoutArg("deliver", timeoutMillis);
  const runtimes = allRuntimes();
  if (runtimes.length === 0) return Promise.resolve(nothing());
  const budget = timeoutMillis ?? runtimes[0]!.options.flushTimeoutMillis;
  const caller = currentObservedSpan()?.spanContext().traceId;
  // The runtime's one drain, as shutdown() and the exit hooks use it: one policy for work left
  // running and for streams nobody read, whatever the way out (runtime/drain.ts).
  const done = merged(runtimes.map((r) => r.drain({ reason: "deliver", budget, caller }))).catch(() => nothing());
  try {
    waitUntil?.(done);
  } catch {
    // A platform that refuses: the caller still has the promise.
  }
  return done;
}
