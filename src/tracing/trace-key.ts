import { isUsableKey } from "../http/keyed-transport.js";
import type { Runtime } from "../runtime/runtime.js";
import { warnFieldOnce } from "../spans/field-warnings.js";

/**
 * Routes a trace to another project's API key (`observe({ apiKey })` on its root, or
 * `updateCurrentTrace({ apiKey })` before it is sent; in a callee, before any of its updates
 * of the caller's trace went out): the trace, its late updates and its offline evaluations go
 * with that key. A value that is not a usable key, or a trace already
 * handed to a request, is ignored with one warning; the key itself is never logged. Never throws.
 * (The routing itself is the trace room's, through the runtime: traces/trace-routing.ts.)
 */
export function routeTrace(rt: Runtime, traceId: string, apiKey: unknown, where: string): void {
  if (!isUsableKey(apiKey)) {
    const got = typeof apiKey === "string" ? (apiKey.length === 0 ? "an empty string" : "a string with spaces or control characters") : apiKey === null ? "null" : typeof apiKey;
    warnFieldOnce(rt.logger, `${where}.apiKey`, `${where} apiKey must be a non-empty string of visible characters; got ${got}; the trace goes to the configured key`);
    return;
  }
  if (rt.routeTrace(traceId, apiKey) === "late") {
    warnFieldOnce(rt.logger, `${where}.apiKey:late`, `${where} apiKey set after the trace was sent: ignored (it went to the key it had)`);
  }
}

/** The API key a trace goes to, when it is not the configured one. */
export function traceKeyOf(rt: Runtime, traceId: string): string | undefined {
  return rt.traceKeyOf(traceId);
}
