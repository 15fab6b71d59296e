import { expect } from "vitest";
import type { StoredSpan } from "../../src/devserver/store.js";
import { TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY } from "../../src/integrations/model-call.js";

/** The streaming timings an llm span carries in its metadata (undefined when absent). */
export function timingsOf(span: StoredSpan): { ttft: unknown; tps: unknown } {
  const meta = (span.metadata ?? {}) as Record<string, unknown>;
  return { ttft: meta[TIME_TO_FIRST_TOKEN_KEY], tps: meta[TOKENS_PER_SECOND_KEY] };
}

/**
 * Checks a streamed llm span's timings against bounds that hold however slow the machine is:
 * the first token comes no sooner than the fake server's pacing allows (`minTtftMs`) and no later
 * than the span's end; with `paced` (the output tokens, and the pauses of `delayMs` the fake
 * server makes from the first content event to the end of the stream) the rate is at most
 * tokens / (pauses × delay).
 */
export function expectStreamTimings(span: StoredSpan, bounds: { minTtftMs: number; paced?: { tokens: number; pauses: number; delayMs: number } }): void {
  const { ttft, tps } = timingsOf(span);
  expect(ttft).toEqual(expect.any(Number));
  const duration = Date.parse(span.endTime) - Date.parse(span.startTime);
  expect(ttft as number).toBeGreaterThanOrEqual(bounds.minTtftMs);
  // Whole milliseconds in Date.parse: one of slack.
  expect(ttft as number).toBeLessThanOrEqual(duration + 1);
  if (!bounds.paced) return;
  const { tokens, pauses, delayMs } = bounds.paced;
  expect(span.outputTokenCount).toBe(tokens);
  expect(tps).toEqual(expect.any(Number));
  expect(tps as number).toBeGreaterThan(0);
  expect(tps as number).toBeLessThanOrEqual((tokens * 1000) / (pauses * delayMs));
}
