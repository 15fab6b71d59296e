import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { FinishedSpan } from "./types.js";

const NO_LOGS: FinishedSpan["logs"] = Object.freeze([]);

/** What the conventions read of a span: name, attributes, events and its correlated log records (taken from the buffer by the caller). */
export function finishedSpan(span: ReadableSpan, logs: FinishedSpan["logs"] | undefined): FinishedSpan {
  return {
    name: typeof span.name === "string" ? span.name : String(span.name),
    attributes: span.attributes ?? {},
    events: span.events ?? [],
    logs: logs ?? NO_LOGS,
  };
}
