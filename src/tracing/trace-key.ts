import { isUsableKey } from "../export/key-batches.js";
import type { Runtime } from "../runtime.js";
import { warnFieldOnce } from "./field-warnings.js";

/**
 * Routes a trace to another project's API key (`observe({ apiKey })` on its root, or
 * `updateCurrentTrace({ apiKey })` before it is sent): the trace, its late updates and its
 * offline evaluations go with that key. A value that is not a usable key, or a trace already
 * handed to a request, is ignored with one warning; the key itself is never logged. Never throws.
 */
export function routeTrace(rt: Runtime, traceId: string, apiKey: unknown, where: string): void {
  if (!isUsableKey(apiKey)) {
    const got = typeof apiKey === "string" ? (apiKey.length === 0 ? "an empty string" : "a string with spaces or control characters") : apiKey === null ? "null" : typeof apiKey;
    warnFieldOnce(rt.logger, `${where}.apiKey`, `${where} apiKey must be a non-empty string of visible characters; got ${got}; the trace goes to the configured key`);
    return;
  }
  const rec = rt.assembler.get(traceId);
  if (!rec || (rec.phase !== "open" && rec.phase !== "queued")) {
    warnFieldOnce(rt.logger, `${where}.apiKey:late`, `${where} apiKey set after the trace was sent: ignored (it went to the key it had)`);
    return;
  }
  rt.transport.remember(apiKey);
  rec.apiKey = apiKey === rt.options.apiKey ? undefined : apiKey;
  if (rec.apiKey !== undefined) rt.assembler.traceKeys.set(traceId, apiKey);
}

/** The API key a trace goes to, when it is not the configured one. */
export function traceKeyOf(rt: Runtime, traceId: string): string | undefined {
  return rt.assembler.get(traceId)?.apiKey ?? rt.assembler.traceKeys.get(traceId);
}
