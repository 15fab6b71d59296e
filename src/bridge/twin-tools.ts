import { type Context, context, trace as otelTrace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { processWide } from "../process-wide.js";
import { foreignSpanClaim, isIntegrationSpan } from "../spans/span-data.js";
import type { ForeignReader } from "./foreign-span.js";

/**
 * One tool call recorded twice: by the AI SDK's telemetry, which zero-code turns on (its
 * `ai.toolCall` span, active around the tool's `execute`), and by the app's framework, whose
 * tool wrapper starts its own span inside that call but under a parent of its choosing (VoltAgent
 * hangs it from the agent's span). Nothing else ties the two. The framework's span is kept (it
 * sits in the agent's tree, as the model-call fold keeps the framework's llm span); zero-code's
 * twin is left out when it ends, its children re-parented past it. One set for the process: the
 * two spans come from two providers, each with its own processor.
 */
const superseded = processWide("bridge.supersededToolSpans", () => new WeakSet<object>());

/** The tool span of zero-code's that `span` (the app's, just started) records again, if any. */
export function noteTwinTool(span: ReadableSpan, parentContext: Context, reader: ForeignReader): void {
  const active = otelTrace.getSpan(context.active()) as unknown as ReadableSpan | undefined;
  // The common case, a span under the active one, costs one lookup.
  if (!active || (active as object) === otelTrace.getSpan(parentContext) || !isIntegrationSpan(active) || active.ended) return;
  const zeroCodes = foreignSpanClaim(active);
  if (zeroCodes?.type !== "tool") return;
  const apps = reader.claimed(span);
  if (apps?.type === "tool" && apps.name === zeroCodes.name) superseded.add(active);
}

/** Whether a span of zero-code's was recorded again by the app's framework (see noteTwinTool): left out. */
export function isSupersededTool(span: object): boolean {
  return superseded.has(span);
}
