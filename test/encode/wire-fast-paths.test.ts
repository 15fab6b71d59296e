import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forgetJsonText, jsonText } from "../../src/encode/json-text.js";
import { spanUuid, traceUuid } from "../../src/spans/ids.js";
import { defaultSerializeLimits, toJsonValue, toText } from "../../src/spans/serialize.js";
import type { JsonValue } from "../../src/spans/json-value.js";
import { hrTimeToIso } from "../../src/spans/time.js";

// The export path's fast paths must send exactly what the general code sends: each is checked
// against that code (the walk of toText, the uuid and ISO formatting without caches).

const { maxStringChars, maxTotalChars, maxDepth, maxItems } = defaultSerializeLimits;

/** Nested `depth` levels deep: [[[...0...]]]. */
const nested = (depth: number): JsonValue => {
  let v: JsonValue = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

describe("jsonText: toText's text, without the copy", () => {
  const edges: [string, () => unknown][] = [
    ["a string at the cap", () => "x".repeat(maxStringChars)],
    ["a string over the cap", () => "x".repeat(maxStringChars + 1)],
    ["a nested string over the cap", () => ({ a: "x".repeat(maxStringChars + 1) })],
    ["strings filling the shared budget exactly", () => Array.from({ length: maxTotalChars / maxStringChars }, () => "y".repeat(maxStringChars))],
    ["strings past the shared budget", () => [...Array.from({ length: maxTotalChars / maxStringChars }, () => "y".repeat(maxStringChars)), "z"]],
    ["an empty object after the budget is spent", () => [...Array.from({ length: maxTotalChars / maxStringChars }, () => "y".repeat(maxStringChars)), {}]],
    ["a key past the budget", () => ({ a: "y".repeat(maxStringChars), b: ["y".repeat(maxStringChars)], ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i}`, "y".repeat(maxStringChars)])) })],
    ["a NUL in a value", () => ({ a: "x\u0000y" })],
    ["a NUL in a key", () => ({ "x\u0000y": 1 })],
    ["a long key", () => ({ ["k".repeat(maxStringChars + 1)]: 1 })],
    ["depth at the limit", () => nested(maxDepth)],
    ["depth past the limit", () => nested(maxDepth + 1)],
    ["items at the limit", () => Array.from({ length: maxItems }, (_, i) => i)],
    ["items past the limit", () => Array.from({ length: maxItems + 1 }, (_, i) => i)],
    ["keys past the limit", () => Object.fromEntries(Array.from({ length: maxItems + 1 }, (_, i) => [`k${i}`, i]))],
    ["a __proto__ key", () => JSON.parse('{"__proto__":{"a":1},"b":2}')],
    ["a null-prototype object", () => Object.assign(Object.create(null), { a: 1 })],
    ["non-finite numbers", () => [Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21]],
    ["holes and undefined", () => Object.assign(new Array(3), { 0: 1, 2: { a: undefined, b: 2 } })],
    ["a cycle", () => {
      const a: { self?: unknown } = {};
      a.self = a;
      return a;
    }],
    ["a toJSON method", () => ({ toJSON: () => "replaced", a: 1 })],
    ["a Date, a Map, a Set, an Error", () => ({ d: new Date(0), m: new Map([["k", 1]]), s: new Set([1]), e: new Error("boom") })],
    ["a getter that throws", () => Object.defineProperty({}, "bad", { enumerable: true, get: () => { throw new Error("no"); } })],
    ["a bigint and a function", () => ({ b: 10n, f() {} })],
    ["short lists of numbers, booleans and nulls (a call's arguments)", () => [-0, 1e21, 5e-324, 0.1, -42, true, false, null]],
    ["a short list with a non-finite number", () => [1, Number.NaN]],
    ["a short list with a string to escape", () => [1, 'a"b']],
    ["a short list with a hole", () => Object.assign(new Array(2), { 1: 1 })],
    ["a list of nine numbers", () => [1, 2, 3, 4, 5, 6, 7, 8, 9]],
  ];
  for (const [name, make] of edges) {
    it(name, () => {
      const value = make() as JsonValue;
      expect(jsonText(value)).toBe(toText(value));
      forgetJsonText();
    });
  }

  it("any captured value: the same text, first time and remembered", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.anything({ maxDepth: 4 }), (json, anything) => {
        for (const v of [json as JsonValue, toJsonValue(anything), anything as JsonValue]) {
          const expected = toText(v);
          expect(jsonText(v)).toBe(expected);
          expect(jsonText(v)).toBe(expected);
        }
        forgetJsonText();
      }),
      { numRuns: 300 },
    );
  });
});

describe("uuids and times: the cached formatting is the plain one", () => {
  const plainUuid = (hex32: string) => `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20, 32)}`;
  const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));

  it("span uuids of interleaved traces, and a span id equal to the trace id's tail", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hex(32), fc.array(hex(16), { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 5 }), (traces) => {
        for (let round = 0; round < 2; round++) {
          for (const [traceId, spanIds] of traces) {
            for (const spanId of [...spanIds, traceId.slice(16)]) {
              const got = spanUuid(traceId, spanId);
              if (spanId === traceId.slice(16)) {
                expect(got).not.toBe(traceUuid(traceId));
                expect(got.slice(0, 19)).toBe(traceUuid(traceId).slice(0, 19));
              } else {
                expect(got).toBe(plainUuid(traceId.slice(0, 16) + spanId));
              }
            }
          }
        }
      }),
    );
  });

  it("span uuids asked again (a parent by each child, then itself), the same span id in other traces, and trace uuids", () => {
    // Few ids, so that the remembered last two are hit, missed and crossed between traces.
    const pool = fc.constantFrom("00f0000000000001", "00f0000000000002", "00f0000000000003");
    const traceIds = fc.constantFrom("1234567890abcdef1234567890abcdef", "fedcba0987654321fedcba0987654321", "1234567890abcdef0000000000000000");
    fc.assert(
      fc.property(fc.array(fc.tuple(traceIds, pool), { minLength: 1, maxLength: 30 }), (calls) => {
        for (const [traceId, spanId] of calls) {
          expect(spanUuid(traceId, spanId)).toBe(plainUuid(traceId.slice(0, 16) + spanId));
          expect(traceUuid(traceId)).toBe(plainUuid(traceId));
        }
      }),
    );
  });

  it("ISO times, repeated and alternating, as Date formats them", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 4_102_444_800 }), fc.integer({ min: 0, max: 999_999_999 })), { minLength: 1, maxLength: 6 }), (times) => {
        for (const t of [...times, ...times.slice().reverse(), ...times]) {
          const iso = new Date(t[0] * 1000).toISOString().slice(0, 19);
          expect(hrTimeToIso(t)).toBe(`${iso}.${String(Math.floor(t[1] / 1000)).padStart(6, "0")}Z`);
        }
      }),
    );
  });
});
