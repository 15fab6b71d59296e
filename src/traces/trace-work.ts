import { recordOf } from "./trace-record.js";
import type { TraceView } from "./trace-view.js";

/**
 * Whether a trace has work not yet done (sent, or a late update), for the flushes that wait for
 * it: the exporter's settlement marks it busy when it takes it, idle when it settled.
 */

/** Marks a trace busy as the `seq`-th to become so; false when it already was. */
export function markBusy(view: TraceView, seq: number): boolean {
  const rec = recordOf(view);
  if (rec.busy) return false;
  rec.busy = true;
  rec.busyAt = seq;
  return true;
}

/** Marks a busy trace idle: everything about it was sent or given up. */
export function markIdle(view: TraceView): void {
  recordOf(view).busy = false;
}
