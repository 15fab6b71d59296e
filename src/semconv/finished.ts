import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonValue } from "../spans/json-value.js";
import { scopeNameOf } from "../spans/span-shape.js";
import type { FinishedSpan } from "./types.js";

const NO_LOGS: FinishedSpan["logs"] = Object.freeze([]);

/**
 * What the conventions read of a span: name, attributes, events, its correlated log records
 * (taken from the buffer by the caller), the GenAI operations of its children and the tool calls
 * its tool children ran.
 */
export function finishedSpan(span: ReadableSpan, logs: FinishedSpan["logs"] | undefined, childOperations?: readonly string[], childToolCalls?: readonly JsonValue[]): FinishedSpan {
  // One shape for every span (each field present, undefined when it has none): the conventions'
  // optimized code is built on it (test/spans/kept-shapes.test.ts).
  return {
    name: typeof span.name === "string" ? span.name : String(span.name),
    attributes: span.attributes ?? {},
    events: span.events ?? [],
    logs: logs ?? NO_LOGS,
    childOperations,
    childToolCalls,
    scope: scopeNameOf(span),
  };
}
