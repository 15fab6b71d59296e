import type { FlushResult } from "./export/trace-exporter.js";
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
