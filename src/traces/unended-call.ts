import { foreignSpanClaimedAs, parentSpanIdOf } from "../spans/span-data.js";
import type { TraceView } from "./trace-view.js";

/**
 * Whether a trace still running is only a model call of another instrumentation that was never
 * ended: its root is an llm span another instrumentation started (no `observe()`, no request
 * handler around it) and has not ended (OpenInference's OpenAI instrumentation never ends a
 * rejected call's span, say). For `deliver()`, that is not another request being served: once
 * the wait is over, it goes as it stands, marked unfinished, with the error it recorded.
 */
export function isUnendedForeignCall(rec: TraceView): boolean {
  for (const span of rec.openSpans) {
    if (parentSpanIdOf(span) !== undefined) continue;
    return foreignSpanClaimedAs(span) === "llm";
  }
  return false;
}
