import { parentSpanContextOf } from "../spans/span-shape.js";
import type { TraceView } from "./trace-view.js";

/**
 * Traces this process records as the callee of another service: their spans hang under a span
 * of a trace that the caller's process sends, so they go out as late updates of it (never
 * `POST`), and without an `endTime` (the caller knows when its trace ended). The assembler marks
 * a record so when its first span has a remote evaltrace parent.
 */
const joined = new WeakSet<TraceView>();

/** Marks a trace as joined from a remote caller (the assembler, when it makes the record). */
export function markJoinedRemotely(rec: TraceView): void {
  joined.add(rec);
}

/** Whether a trace was joined from a remote caller (its spans are late updates of the caller's trace). */
export function isJoinedRemotely(rec: TraceView): boolean {
  return joined.has(rec);
}

/**
 * Whether a trace joined from a remote caller still has a request being served: a span whose
 * parent is the caller's is open (for `deliver()`, that is another request, not work left running).
 */
export function servesRemoteCaller(rec: TraceView): boolean {
  if (!joined.has(rec)) return false;
  for (const span of rec.openSpans) if (parentSpanContextOf(span)?.isRemote) return true;
  return false;
}
