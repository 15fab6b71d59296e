import { processWide } from "../process-wide.js";

/**
 * Model requests recorded by the net below the integrations' method-level wrappers (a request
 * that no wrapper's span owned), for the process: `stats().netSpans`.
 */
const counter = (): { count: number } => processWide("netSpans", () => ({ count: 0 }));

/** Counts one llm span recorded by the net. Never throws. */
export function countNetSpan(): void {
  counter().count++;
}

/** How many llm spans the net recorded so far. */
export function netSpanCount(): number {
  return counter().count;
}
