import { expect } from "vitest";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY } from "../../src/protocol/metadata-keys.js";

/** The streaming timings an llm span carries in its metadata (undefined when absent). */
export function timingsOf(span: StoredSpan): { ttft: unknown; tps: unknown } {
  const meta = (span.metadata ?? {}) as Record<string, unknown>;
  return { ttft: meta[TIME_TO_FIRST_TOKEN_KEY], tps: meta[TOKENS_PER_SECOND_KEY] };
}

/**
 * Checks a streamed llm span's timings against bounds that hold however slow the machine is: the
 * first token comes no sooner than the fake server's pacing allows (`minTtftMs`: the pauses it
 * makes before the first content event) and before the span's end; the rate counts `tokens` over
 * at most the time from the first token to the span's end, so it is at least tokens / (duration −
 * time to first token).
 */
export function expectStreamTimings(span: StoredSpan, bounds: { minTtftMs: number; tokens: number }): void {
  const { ttft, tps } = timingsOf(span);
  expect(ttft).toEqual(expect.any(Number));
  // Whole milliseconds in Date.parse: one of slack.
  const duration = Date.parse(span.endTime) - Date.parse(span.startTime) + 1;
  expect(ttft as number).toBeGreaterThanOrEqual(bounds.minTtftMs);
  expect(ttft as number).toBeLessThanOrEqual(duration);
  expect(span.outputTokenCount).toBe(bounds.tokens);
  expect(tps).toEqual(expect.any(Number));
  expect(tps as number).toBeGreaterThanOrEqual((bounds.tokens * 1000) / (duration - (ttft as number)) - 0.01);
}
