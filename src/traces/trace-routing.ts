import { MAX_REMEMBERED_TRACES, RecentTraces } from "../util/recent-traces.js";
import { isJoinedRemotely } from "./joined-remotely.js";
import type { TraceRecord } from "./trace-record.js";

/**
 * Which project's key each trace goes to, when not the configured one (`observe({ apiKey })`,
 * `updateCurrentTrace({ apiKey })`): kept on the record while the SDK holds it, and remembered
 * a while after (for late spans, and offline evaluations of a delivered trace).
 */
export class TraceRouting {
  /** Per-trace keys, remembered after their records were let go. */
  private readonly keys = new RecentTraces<string>(MAX_REMEMBERED_TRACES);

  /** A new record takes the key its trace was routed to before (a late span of a delivered trace). */
  adopt(rec: TraceRecord): void {
    const key = this.keys.get(rec.traceId);
    if (key !== undefined) rec.apiKey = key;
  }

  /**
   * Routes a held trace to `apiKey` (`configured`: the configured key, which needs no routing):
   * `"late"` when it can no longer change (it went, or goes, to the key it had), or the SDK holds
   * no such trace.
   */
  route(rec: TraceRecord | undefined, apiKey: string, configured: string | undefined): "routed" | "late" {
    if (!rec || !(rec.phase === "open" || rec.phase === "queued" || nothingSentYet(rec))) return "late";
    rec.apiKey = apiKey === configured ? undefined : apiKey;
    // Routed back to the configured key: the key remembered for its late parts goes too.
    if (rec.apiKey !== undefined) this.keys.set(rec.traceId, apiKey);
    else this.keys.delete(rec.traceId);
    return "routed";
  }

  /** The key a trace goes to, when not the configured one. */
  keyOf(rec: TraceRecord | undefined, traceId: string): string | undefined {
    return rec?.apiKey ?? this.keys.get(traceId);
  }
}

/**
 * A trace joined from a remote caller (this process is the callee; its spans go out as late
 * updates of the caller's trace) of which no update has gone out yet: it can still be routed.
 */
function nothingSentYet(rec: TraceRecord): boolean {
  return isJoinedRemotely(rec) && !rec.putInFlight && rec.sentEndTime === undefined;
}
