import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { scopeNameOf } from "../spans/span-shape.js";
import type { FinishedSpan } from "./types.js";

const NO_LOGS: FinishedSpan["logs"] = Object.freeze([]);

/**
 * What the conventions read of a span: name, attributes, events, its correlated log records
 * (taken from the buffer by the caller) and the GenAI operations of its children.
 */
export function finishedSpan(span: ReadableSpan, logs: FinishedSpan["logs"] | undefined, childOperations?: readonly string[]): FinishedSpan {
  // One shape for every span (each field present, undefined when it has none): the conventions'
  // optimized code is built on it (test/spans/kept-shapes.test.ts).
  return {
    name: typeof span.name === "string" ? span.name : String(span.name),
    attributes: span.attributes ?? {},
    events: span.events ?? [],
    logs: logs ?? NO_LOGS,
    childOperations,
    scope: scopeNameOf(span),
  };
}
