import { type Attributes, type Context, type HrTime, INVALID_SPAN_CONTEXT, type Span, type SpanContext, TraceFlags, trace } from "@opentelemetry/api";
import { isTracingSuppressed } from "../util/otel-core.js";
import { ObservedSpan, type SpanSink } from "./observed-span.js";
import { newSpanId, newTraceId } from "./random-ids.js";

/** The runtime as the tracer needs it: who hears of spans, and whether a new trace is recorded. */
export interface SpanSource extends SpanSink {
  onStart(span: ObservedSpan, parentContext: Context, parent: ParentSpan): void;
  /** Whether to record a new trace (sampling, and room for it): asked once per root. */
  admitRoot(): boolean;
}

/**
 * The parent of a span being started: `undefined` for the span of the context it starts in,
 * `null` for none (a root whatever the context holds), or the parent itself. Given the parent,
 * no context is made just to carry it (a context copies its entries on each change).
 */
export type ParentSpan = Span | null | undefined;

/**
 * Opens an observed span under `parentSpan` (by default the span of `parentContext`), as
 * OpenTelemetry's tracer would with our sampler: a root is recorded if `admitRoot()` says so, a child follows its parent's sampled
 * flag, and a context that suppresses tracing (an exporter's own request) gets a non-recording
 * span. A span not recorded still carries ids, so what runs inside it propagates a context.
 */
export function startObservedSpan(name: string, startTime: HrTime, attributes: Attributes, parentContext: Context, source: SpanSource, parentSpan?: ParentSpan): Span {
  if (isTracingSuppressed(parentContext)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  const parent = parentSpan === undefined ? trace.getSpanContext(parentContext) : (parentSpan?.spanContext() ?? undefined);
  // An observed span's ids are valid by construction (made here, or its valid parent's): only
  // another span's are checked (a regular expression on each id, per span).
  const valid = parent !== undefined && (parentSpan instanceof ObservedSpan || trace.isSpanContextValid(parent));
  const sampled = parent ? (parent.traceFlags & TraceFlags.SAMPLED) !== 0 : source.admitRoot();
  const context: SpanContext = {
    traceId: valid ? parent.traceId : newTraceId(),
    spanId: newSpanId(),
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    traceState: valid ? parent.traceState : undefined,
  };
  if (!sampled) return trace.wrapSpanContext(context);
  const span = new ObservedSpan(name, context, valid ? parent : undefined, startTime, attributes, source);
  source.onStart(span, parentContext, parentSpan);
  return span;
}
