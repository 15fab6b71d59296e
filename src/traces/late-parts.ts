import type { HrTime } from "@opentelemetry/api";
import { recordOf } from "./trace-record.js";
import type { TraceView } from "./trace-view.js";

/**
 * The life of a delivered trace's late parts (`PUT /v1/traces/:uuid`, one at a time): in flight
 * or not, the end time the service has, and whether a part was lost. The late-update policy
 * (export/late-updates.ts) calls these; `nextLateBatch` (outgoing.ts) takes each part.
 */

/** A PUT of the trace's late parts is in flight from now on. */
export function startLateSending(view: TraceView): void {
  recordOf(view).putInFlight = true;
}

/** No PUT of the trace is in flight any more. */
export function endLateSending(view: TraceView): void {
  recordOf(view).putInFlight = false;
}

/** A late part was delivered: the service's end time of the trace is `endTime` now. */
export function markLateSent(view: TraceView, endTime: HrTime | undefined): void {
  recordOf(view).sentEndTime = endTime;
}

/** A late part of a delivered trace was given up (`reason`): `flush()` reports the trace. */
export function markPartLost(view: TraceView, reason: string): void {
  recordOf(view).partLost = reason;
}
