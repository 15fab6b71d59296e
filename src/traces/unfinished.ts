import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

const UNFINISHED = Symbol.for("evaltrace.unfinished");

/** Metadata key marking a span that was still open when its trace had to be sent. */
export const UNFINISHED_SPAN_KEY = "evaltrace.unfinished";
/** Trace metadata keys: spans sent unfinished; spans dropped past `maxSpansPerTrace`. */
export const UNFINISHED_SPANS_KEY = "evaltrace.unfinishedSpans";
export const TRUNCATED_KEY = "evaltrace.truncated";
export const DROPPED_SPANS_KEY = "evaltrace.droppedSpans";

/**
 * A still-open span as it stands, closed at `endTime`: what is sent for it when its trace can
 * wait no longer. The span itself is left untouched (it may belong to another instrumentation
 * or exporter); the view reads everything else through it.
 */
export function unfinishedView(span: ReadableSpan, endTime: HrTime): ReadableSpan {
  return Object.create(span, {
    endTime: { value: endTime },
    ended: { value: true },
    [UNFINISHED]: { value: true },
  }) as ReadableSpan;
}

/** Whether a span is such a view. */
export function isUnfinished(span: ReadableSpan): boolean {
  return (span as { [UNFINISHED]?: boolean })[UNFINISHED] === true;
}
