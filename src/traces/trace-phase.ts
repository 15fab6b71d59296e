import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { recordOf, type TraceRecord } from "./trace-record.js";
import type { TracePhase, TraceView } from "./trace-view.js";

/**
 * A trace's phase machine: `open → queued → sending → sent | failed`, and the few other moves a
 * trace makes (one that starts as the late part of a trace already handed off is `sent` from its
 * first span; any trace may be given up). The functions here are the only writers of a record's
 * phase; each moves it only along {@link NEXT} and says whether it did.
 */
const NEXT: { readonly [from in TracePhase]: readonly TracePhase[] } = {
  open: ["queued", "sent", "failed"],
  queued: ["sending", "failed"],
  sending: ["sent", "failed"],
  // Told again that the service has it: nothing moves.
  sent: ["sent", "failed"],
  // Given up again (a dropped trace still queued at shutdown): the newer reason stands.
  failed: ["failed"],
};

function moveTo(rec: TraceRecord, to: TracePhase): boolean {
  if (!NEXT[rec.phase].includes(to)) return false;
  rec.phase = to;
  return true;
}

/** A new trace whose spans can only be late parts of a trace already handed off (or sent by a remote caller). */
export function startAsLate(rec: TraceRecord): void {
  moveTo(rec, "sent");
}

/** The trace's local root ended: complete but for late spans, waiting for a batch. */
export function markQueued(rec: TraceRecord, root: ReadableSpan): boolean {
  if (!moveTo(rec, "queued")) return false;
  rec.root = root;
  return true;
}

/** Taken into a request (`markSending` of outgoing.ts takes its spans with it). False when the trace is not queued. */
export function enterSending(rec: TraceRecord): boolean {
  return moveTo(rec, "sending");
}

/**
 * The service has the trace (or a capture of `evaltrace/testing` took it): from now on what ends
 * in it is a late update. `endTime`: the trace's end as sent. False when it was given up meanwhile.
 */
export function markSent(view: TraceView, endTime?: HrTime): boolean {
  const rec = recordOf(view);
  if (!moveTo(rec, "sent")) return false;
  if (endTime !== undefined) rec.sentEndTime = endTime;
  return true;
}

/** A trace force-ended with nothing kept (its root never seen here): nothing of it goes out. */
export function markNothingToSend(rec: TraceRecord): void {
  moveTo(rec, "failed");
}

/** Gives a trace up with `reason`: nothing more of it is sent (counting and waking are the caller's). */
export function markFailed(view: TraceView, reason: string): void {
  const rec = recordOf(view);
  moveTo(rec, "failed");
  rec.failure = reason;
  rec.late = undefined;
  rec.spans = [];
}

/**
 * The app dropped the trace (`updateCurrentTrace({ drop: true })`): not sent yet (open or
 * queued), it is failed, its spans let go; sent, what is still to come of it is forgotten.
 */
export function markDroppedByApp(view: TraceView): void {
  const rec = recordOf(view);
  rec.discarded = true;
  if ((rec.phase === "open" || rec.phase === "queued") && moveTo(rec, "failed")) {
    rec.failure = "dropped by the app";
    rec.spans = [];
  }
  rec.late = undefined;
}
