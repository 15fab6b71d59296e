import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { logsOf } from "./log-records.js";
import type { FinishedSpan } from "./types.js";

/** What the conventions read of a span: name, attributes, events and its correlated log records. */
export function finishedSpan(span: ReadableSpan): FinishedSpan {
  return {
    name: typeof span.name === "string" ? span.name : String(span.name),
    attributes: span.attributes ?? {},
    events: span.events ?? [],
    logs: logsOf(span),
  };
}
