import type { FinishedSpan } from "./types.js";

/**
 * AI SDK 7's `@ai-sdk/otel` (its `OpenTelemetry` integration, whose tracer is `"gen_ai"` unless the app gives its own): a call it ends
 * normally carries its finish reason (`gen_ai.response.finish_reasons`, set on the model call's
 * `chat` span and the call's `invoke_agent` span at their end event); a failed one an ERROR
 * status. A call aborted by the app (its AbortController) is ended by the integration's
 * `onAbort` with neither: no status, no finish. Such a span is an error, as the AI SDK 5/6 spans
 * without a finish are (`semconv/ai-sdk.ts`).
 */
const SCOPE = "gen_ai";

/** The operations whose spans end with a finish reason when they end normally. */
const FINISHED_BY_REASON = new Set(["chat", "invoke_agent"]);

/** Why a span of `@ai-sdk/otel` ended as an error although its status does not say so, if it did. */
export function aiSdkOtelError(span: FinishedSpan): string | undefined {
  if (span.scope !== SCOPE) return undefined;
  const operation = span.attributes["gen_ai.operation.name"];
  if (typeof operation !== "string" || !FINISHED_BY_REASON.has(operation)) return undefined;
  if (span.attributes["gen_ai.response.finish_reasons"] !== undefined) return undefined;
  return "ended with no finish: aborted, or not read to its end";
}
