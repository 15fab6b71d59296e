// Vendored from OpenTelemetry JS, @opentelemetry/core 2.12.1
// (build/src/trace/W3CTraceContextPropagator.js), Copyright The OpenTelemetry Authors, Apache
// License 2.0 (https://github.com/open-telemetry/opentelemetry-js, LICENSE in that repository).
// Rewritten in TypeScript with core's behaviour (one deliberate difference, in inject(): trace
// flags of 16 and over are written as two hex digits, where core writes an invalid three).
// evaltrace does not depend on @opentelemetry/core at run time; test/util/w3c-trace-context.test.ts
// compares this propagator with core's on a set of headers.
import {
  type Context,
  isSpanContextValid,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { isTracingSuppressed } from "./otel-core.js";
import { TraceState } from "./trace-state.js";

export const TRACE_PARENT_HEADER = "traceparent";
export const TRACE_STATE_HEADER = "tracestate";

const VERSION = "00";
const VERSION_PART = "(?!ff)[\\da-f]{2}";
const TRACE_ID_PART = "(?![0]{32})[\\da-f]{32}";
const PARENT_ID_PART = "(?![0]{16})[\\da-f]{16}";
const FLAGS_PART = "[\\da-f]{2}";
/** `version-traceid-parentid-flags`, lowercase hex; a later version may append fields. One space either side is tolerated. */
const TRACE_PARENT_REGEX = new RegExp(`^\\s?(${VERSION_PART})-(${TRACE_ID_PART})-(${PARENT_ID_PART})-(${FLAGS_PART})(-.*)?\\s?$`);

/**
 * The span context of a `traceparent` header, or null when it is not one: a version other than
 * `ff`, non-zero trace and parent ids, lowercase hex only; fields after the flags only for a
 * version other than `00` (W3C: a receiver reads what it knows of a later version).
 */
export function parseTraceParent(traceParent: string): SpanContext | null {
  const match = TRACE_PARENT_REGEX.exec(traceParent);
  if (!match) return null;
  if (match[1] === "00" && match[5]) return null;
  return { traceId: match[2]!, spanId: match[3]!, traceFlags: Number.parseInt(match[4]!, 16) };
}

/**
 * W3C Trace Context (`traceparent`, `tracestate`) as OpenTelemetry's
 * `W3CTraceContextPropagator` propagates it (https://www.w3.org/TR/trace-context/).
 */
export class W3CTraceContextPropagator implements TextMapPropagator {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const spanContext = trace.getSpanContext(context);
    if (!spanContext || isTracingSuppressed(context) || !isSpanContextValid(spanContext)) return;
    const flags = (Number(spanContext.traceFlags || TraceFlags.NONE) & 0xff).toString(16).padStart(2, "0");
    setter.set(carrier, TRACE_PARENT_HEADER, `${VERSION}-${spanContext.traceId}-${spanContext.spanId}-${flags}`);
    if (spanContext.traceState) setter.set(carrier, TRACE_STATE_HEADER, spanContext.traceState.serialize());
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const traceParentHeader = getter.get(carrier, TRACE_PARENT_HEADER);
    if (!traceParentHeader) return context;
    const traceParent = Array.isArray(traceParentHeader) ? traceParentHeader[0] : traceParentHeader;
    if (typeof traceParent !== "string") return context;
    const spanContext = parseTraceParent(traceParent);
    if (!spanContext) return context;
    spanContext.isRemote = true;
    const traceStateHeader = getter.get(carrier, TRACE_STATE_HEADER);
    if (traceStateHeader) {
      // Several `tracestate` headers are one list (W3C).
      const state = Array.isArray(traceStateHeader) ? traceStateHeader.join(",") : traceStateHeader;
      spanContext.traceState = new TraceState(typeof state === "string" ? state : undefined);
    }
    return trace.setSpanContext(context, spanContext);
  }

  fields(): string[] {
    return [TRACE_PARENT_HEADER, TRACE_STATE_HEADER];
  }
}
