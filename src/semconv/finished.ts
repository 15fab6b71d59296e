import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { scopeNameOf } from "../spans/span-shape.js";
import type { FinishedSpan } from "./types.js";

const NO_LOGS: FinishedSpan["logs"] = Object.freeze([]);

/**
 * What the conventions read of a span: name, attributes, events, its correlated log records
 * (taken from the buffer by the caller) and the GenAI operations of its children.
 */
export function finishedSpan(span: ReadableSpan, logs: FinishedSpan["logs"] | undefined, childOperations?: readonly string[]): FinishedSpan {
  const finished: FinishedSpan = {
    name: typeof span.name === "string" ? span.name : String(span.name),
    attributes: span.attributes ?? {},
    events: span.events ?? [],
    logs: logs ?? NO_LOGS,
  };
  if (childOperations) finished.childOperations = childOperations;
  const scope = scopeNameOf(span);
  if (scope !== undefined) finished.scope = scope;
  return finished;
}
