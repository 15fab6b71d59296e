import { type Attributes, type AttributeValue, type Context, createContextKey, diag, type HrTime, type TimeInput } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

/** `@opentelemetry/resources`' type, as sdk-trace-base's ReadableSpan names it (resources is not a dependency). */
export type Resource = ReadableSpan["resource"];

/**
 * The few functions of `@opentelemetry/core` the SDK calls on its hot path, with core's own
 * semantics, so that `import "evaltrace"` does not load core's index (some thirty files) nor
 * `@opentelemetry/resources` (which loads core and the semantic conventions); core's W3C
 * propagator and `TraceState` are vendored beside this file (w3c-trace-context.ts,
 * trace-state.ts), so core is not a dependency at all. The suppress-tracing key is core's own
 * (`createContextKey` is `Symbol.for`), so a context suppressed by the app's OpenTelemetry is
 * suppressed here too.
 */
const SUPPRESS_TRACING_KEY = createContextKey("OpenTelemetry SDK Context Key SUPPRESS_TRACING");

/** `context` with tracing suppressed, as `@opentelemetry/core`'s `suppressTracing`. */
export function suppressTracing(context: Context): Context {
  return context.setValue(SUPPRESS_TRACING_KEY, true);
}

/** Whether tracing is suppressed in `context`, as `@opentelemetry/core`'s `isTracingSuppressed`. */
export function isTracingSuppressed(context: Context): boolean {
  return context.getValue(SUPPRESS_TRACING_KEY) === true;
}

function isPrimitiveType(type: string): boolean {
  return type === "number" || type === "boolean" || type === "string";
}

/** Whether `value` is an attribute value (null, a primitive, or an array of one primitive type), as core's `isAttributeValue`. */
export function isAttributeValue(value: unknown): value is AttributeValue {
  if (value == null) return true;
  if (!Array.isArray(value)) return isPrimitiveType(typeof value);
  let type: string | undefined;
  for (const element of value) {
    if (element == null) continue;
    const elementType = typeof element;
    if (elementType === type) continue;
    if (type === undefined && isPrimitiveType(elementType)) {
      type = elementType;
      continue;
    }
    return false;
  }
  return true;
}

/** The valid attributes of `attributes` (arrays copied), the others dropped with a diag warning, as core's `sanitizeAttributes`. */
export function sanitizeAttributes(attributes: unknown): Attributes {
  const out: Attributes = {};
  if (typeof attributes !== "object" || attributes == null) return out;
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    if (key === "") {
      diag.warn(`Invalid attribute key: ${key}`);
      continue;
    }
    const value = (attributes as Record<string, unknown>)[key];
    if (!isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      continue;
    }
    out[key] = Array.isArray(value) ? (value.slice() as AttributeValue) : (value as AttributeValue);
  }
  return out;
}

/** Whether `value` is a time input (an HrTime, a number or a Date), as core's `isTimeInput`. */
export function isTimeInput(value: unknown): value is TimeInput {
  return (Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number") || typeof value === "number" || value instanceof Date;
}

/** Epoch milliseconds as an HrTime (sub-nanoseconds rounded), as core's `millisToHrTime`. */
export function millisToHrTime(epochMillis: number): HrTime {
  const seconds = Math.trunc(epochMillis / 1000);
  const nanos = Math.round((epochMillis % 1000) * 1e6);
  return [seconds, nanos];
}

/**
 * The empty resource, as `@opentelemetry/resources`' `emptyResource()` behaves: no attributes,
 * and merging another resource into it gives that resource.
 */
export const EMPTY_RESOURCE: Resource = Object.freeze({
  attributes: Object.freeze({}) as Attributes,
  asyncAttributesPending: false,
  merge: (other: Resource | null): Resource => other ?? EMPTY_RESOURCE,
  getRawAttributes: () => [],
});
