import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoMicros, t } from "../../src/protocol/schema.js";

// The emulator reads every span's two timestamps: the common `...Z` form digit by digit, the rest
// through Date.parse. Both must give the same instant, to the microsecond, and accept the same.

const accepts = (v: string) => {
  try {
    t.iso(v, "x");
    return true;
  } catch {
    return false;
  }
};

describe("ISO timestamps", () => {
  it("reads the counterexample a float fraction got wrong (0.259881 s on a 29th-31st)", () => {
    expect(isoMicros("2034-06-29T00:00:00.259881Z") % 1_000_000).toBe(259881);
  });

  it("microseconds exact for every fraction width, as the same instant written with an offset", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4102444799999 }), fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 9 }), (ms, nanos, width) => {
        const whole = new Date(ms - (ms % 1000)).toISOString().slice(0, 19);
        const fraction = String(nanos).padStart(9, "0").slice(0, width);
        const iso = `${whole}${width ? `.${fraction}` : ""}Z`;
        const expected = (ms - (ms % 1000)) * 1000 + (width ? Math.floor(Number(fraction.padEnd(9, "0")) / 1000) : 0);
        expect(isoMicros(iso)).toBe(expected);
        // The general path (an offset) reads the same instant.
        expect(isoMicros(`${whole}${width ? `.${fraction}` : ""}+00:00`)).toBe(expected);
        expect(accepts(iso)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    // Date.parse's own leniency (a 31st of February, 24:00) is kept: those take the general path.
    ["2026-02-31T00:00:00Z", true],
    ["2026-13-01T00:00:00Z", false],
    ["2026-01-01T24:00:00Z", true],
    ["2026-01-01T00:60:00Z", false],
    ["2026-01-01T00:00:00.Z", false],
    ["2026-01-01T00:00:00.1234567890Z", false],
    ["2026-01-0aT00:00:00Z", false],
    ["2026-01-01 00:00:00Z", false],
    ["2026-01-01T00:00:00", false],
    ["2026-01-29T10:00:00.5+02:00", true],
    ["2026-01-29T23:59:59.999999999Z", true],
  ])("%s accepted: %s", (iso, ok) => {
    expect(accepts(iso)).toBe(ok);
    if (ok) expect(isoMicros(iso)).toBe(Date.parse(iso.replace(/\.\d+/, "")) * 1000 + (iso.includes(".") ? Math.floor(Number(`0.${/\.(\d+)/.exec(iso)![1]!.slice(0, 6)}`) * 1e6 + 1e-6) : 0));
  });
});
