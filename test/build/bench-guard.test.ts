import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of bench/, without types
import { verdict } from "../../bench/guard.mjs";

type Verdict = { ok: boolean; text: string };
const subject = (a: number | null, b: number | null, flagged: string | null = null) => ({ flagged, ratioToRawOtel: { totalCpuA: a, totalCpuB: b } });

describe("the bench's CI guard (bench/guard.mjs, issue 46)", () => {
  it("passes at 1.1x raw OpenTelemetry's CPU per span on A and B, and fails at 1.11x on either", () => {
    expect((verdict(subject(1.1, 0.7), 1.1) as Verdict).ok).toBe(true);
    expect((verdict(subject(1.11, 0.7), 1.1) as Verdict).ok).toBe(false);
    expect((verdict(subject(0.7, 1.11), 1.1) as Verdict).ok).toBe(false);
  });

  it("fails when evaltrace was flagged or a ratio is missing, naming why", () => {
    const flagged = verdict(subject(0.7, 0.7, "delivered 10 of 12 spans"), 1.1) as Verdict;
    expect(flagged).toEqual({ ok: false, text: expect.stringContaining("delivered 10 of 12 spans") });
    expect((verdict(subject(null, 0.7), 1.1) as Verdict).ok).toBe(false);
    expect((verdict(undefined, 1.1) as Verdict).ok).toBe(false);
  });
});
