import { isUsableKey } from "../http/keyed-transport.js";
import { joinedRemotely, type TraceRecord } from "../assemble/trace-record.js";
import type { Runtime } from "../runtime/runtime.js";
import { warnFieldOnce } from "../spans/field-warnings.js";

/**
 * Routes a trace to another project's API key (`observe({ apiKey })` on its root, or
 * `updateCurrentTrace({ apiKey })` before it is sent; in a callee, before any of its updates
 * of the caller's trace went out): the trace, its late updates and its offline evaluations go
 * with that key. A value that is not a usable key, or a trace already
 * handed to a request, is ignored with one warning; the key itself is never logged. Never throws.
 */
export function routeTrace(rt: Runtime, traceId: string, apiKey: unknown, where: string): void {
  if (!isUsableKey(apiKey)) {
    const got = typeof apiKey === "string" ? (apiKey.length === 0 ? "an empty string" : "a string with spaces or control characters") : apiKey === null ? "null" : typeof apiKey;
    warnFieldOnce(rt.logger, `${where}.apiKey`, `${where} apiKey must be a non-empty string of visible characters; got ${got}; the trace goes to the configured key`);
    return;
  }
  const rec = rt.assembler.get(traceId);
  if (!rec || !(rec.phase === "open" || rec.phase === "queued" || nothingSentYet(rec))) {
    warnFieldOnce(rt.logger, `${where}.apiKey:late`, `${where} apiKey set after the trace was sent: ignored (it went to the key it had)`);
    return;
  }
  rt.transport.remember(apiKey);
  rec.apiKey = apiKey === rt.options.apiKey ? undefined : apiKey;
  if (rec.apiKey !== undefined) rt.assembler.traceKeys.set(traceId, apiKey);
}

/**
 * A trace joined from a remote caller (this process is the callee; its spans go out as late
 * updates of the caller's trace) of which no update has gone out yet: it can still be routed.
 */
function nothingSentYet(rec: TraceRecord): boolean {
  return joinedRemotely.has(rec) && !rec.putInFlight && rec.sentEndTime === undefined;
}

/** The API key a trace goes to, when it is not the configured one. */
export function traceKeyOf(rt: Runtime, traceId: string): string | undefined {
  return rt.assembler.get(traceId)?.apiKey ?? rt.assembler.traceKeys.get(traceId);
}
