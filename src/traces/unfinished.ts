import { type HrTime, SpanStatusCode } from "@opentelemetry/api";
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
 * or exporter); the view reads everything else through it. A span whose status says nothing
 * but which recorded an exception (an instrumentation that records a call's error and never
 * ends its span) is sent with that error as its status.
 */
export function unfinishedView(span: ReadableSpan, endTime: HrTime): ReadableSpan {
  const props: PropertyDescriptorMap = {
    endTime: { value: endTime },
    ended: { value: true },
    [UNFINISHED]: { value: true },
  };
  const error = span.status?.code === SpanStatusCode.UNSET ? recordedException(span) : undefined;
  if (error !== undefined) props.status = { value: { code: SpanStatusCode.ERROR, message: error } };
  return Object.create(span, props) as ReadableSpan;
}

/** The last exception a span recorded, as `type: message` (OTel's `exception` event). */
function recordedException(span: ReadableSpan): string | undefined {
  const events = span.events ?? [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.name !== "exception") continue;
    const message = event.attributes?.["exception.message"];
    const type = event.attributes?.["exception.type"];
    const text = typeof message === "string" && message !== "" ? message : undefined;
    if (text === undefined) return typeof type === "string" && type !== "" ? type : "exception";
    return typeof type === "string" && type !== "" && !text.startsWith(type) ? `${type}: ${text}` : text;
  }
  return undefined;
}

/** Whether a span is such a view. */
export function isUnfinished(span: ReadableSpan): boolean {
  return (span as { [UNFINISHED]?: boolean })[UNFINISHED] === true;
}
