import type { Logger } from "../logger.js";
import { processWide } from "../process-wide.js";

/**
 * Spans that ended with a `metricCollection` but no `llmTestCase`, for the process:
 * `stats().spansWithoutTestCase`. The service evaluates a span from its test case (the vendor's
 * SDKs send one beside the collection; the emulator makes an evaluation only then), so such a
 * span is never evaluated: the app is told once per collection name, then they are counted.
 */
const state = (): { count: number; warned: Set<string> } => processWide("spansWithoutTestCase", () => ({ count: 0, warned: new Set<string>() }));

/** Counts one span of `collection` without a test case; warns on the first of each collection name. Never throws. */
export function noteSpanWithoutTestCase(collection: string, spanName: string, logger: Logger): void {
  const s = state();
  s.count++;
  if (s.warned.has(collection)) return;
  s.warned.add(collection);
  try {
    logger.warn(
      `span "${spanName}" has metricCollection "${collection}" but no llmTestCase, so it is not evaluated: the service evaluates a span from its test case. Set one (observe({ llmTestCase }) or updateCurrentSpan({ llmTestCase: { input, actualOutput } })); later spans of "${collection}" without one are counted in stats().spansWithoutTestCase, not logged`,
    );
  } catch {
    // A logger that throws changes nothing for the app.
  }
}

/** How many spans ended with a metricCollection and no llmTestCase so far, for the process. */
export function spansWithoutTestCaseCount(): number {
  return state().count;
}
