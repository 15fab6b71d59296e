import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { spanUuid, traceUuid } from "../../src/spans/ids.js";
import { ascii, JsonBytes } from "../../src/encode/json-bytes.js";
import { hrTimeToIso } from "../../src/spans/time.js";

// The body is written as bytes, uuids and times straight from the ids and times: every byte must
// be what JSON.stringify writes of the strings the formatters make (the text sent before).

const hex = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n });
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "binary", minLength: 250, maxLength: 300 }),
  fc.constantFrom("", '"', "\\", "\u0000", "\u001f", "\u007f", "é", "\ud800", "\udc00x", "😀", "a\u2028b", "x".repeat(70_000), `${"é".repeat(30_000)}\ud800`),
);

function written(write: (w: JsonBytes) => void, w = new JsonBytes(16)): string {
  w.reset();
  write(w);
  return w.text();
}

describe("JsonBytes: JSON.stringify's bytes", () => {
  it("strings of any kind, short and long", () => {
    fc.assert(fc.property(text, (s) => {
        expect(written((w) => w.string(s))).toBe(JSON.stringify(s));
      }));
  });

  it("any value; nothing for what JSON leaves out", () => {
    fc.assert(fc.property(fc.anything({ withBoxedValues: true, withNullPrototype: true }), (v) => {
        expect(written((w) => w.value(v))).toBe(JSON.stringify(v) ?? "");
      }));
    for (const v of [undefined, () => 1, Symbol("s")]) expect(written((w) => expect(w.value(v)).toBe(false))).toBe("");
  });

  it("plain data written by hand, the rest by JSON.stringify: the same text either way", () => {
    const numbers = fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger(), fc.constantFrom(-0, 1e15, -1e15, 1e15 - 1, 1 - 1e15, 1e21, 0.1, 5e-324, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));
    fc.assert(fc.property(numbers, (n) => {
        expect(written((w) => w.value(n))).toBe(JSON.stringify(n));
        expect(written((w) => w.value([n, { n }]))).toBe(JSON.stringify([n, { n }]));
      }), { numRuns: 500 });
    const plain = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string(), numbers, fc.boolean(), fc.constant(null), fc.constantFrom(undefined, () => 1, Symbol("s")), tie("array"), tie("object")),
      array: fc.array(tie("value"), { maxLength: 5 }),
      object: fc.dictionary(fc.string(), tie("value"), { maxKeys: 5 }),
    }));
    fc.assert(fc.property(plain.value, (v) => {
        expect(written((w) => w.value(v))).toBe(JSON.stringify(v) ?? "");
      }), { numRuns: 500 });
    class Special extends Array<number> {}
    const getter = { get x() { return 1; }, y: 2 };
    const withToJson = { a: 1, toJSON: () => "mine" };
    let deep: unknown = "bottom";
    for (let i = 0; i < 200; i++) deep = i % 2 ? [deep] : { d: deep };
    const fnWithToJson = Object.assign(() => 1, { toJSON: () => "fn" });
    const asArrays = [Object.setPrototypeOf([1, 2], null), Object.setPrototypeOf([1, 2], Object.prototype), new Proxy([1, 2], { getPrototypeOf: () => Object.prototype })];
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested.
    const odd = [{ a: fnWithToJson, b: () => 1 }, [fnWithToJson, () => 1], Object.setPrototypeOf({ a: 1 }, Array.prototype), ...asArrays, [, 1], Special.from([1, 2]), Object.create({ inherited: 1 }), getter, withToJson, { nested: [withToJson] }, new Date(0), Object.assign(Object.create(null), { a: [1] }), deep, { [Symbol("s")]: 1, k: 1 }, { 2: "b", 1: "a", z: 0 }];
    for (const v of odd) expect(written((w) => w.value(v))).toBe(JSON.stringify(v));
    const cycle: { self?: unknown } = {};
    cycle.self = [cycle];
    expect(() => new JsonBytes(16).value(cycle)).toThrow(TypeError);
    expect(() => new JsonBytes(16).value({ n: 1n })).toThrow(TypeError);
  });

  it("uuids of traces and spans, whatever the ids (the formatters' text)", () => {
    const ids = fc.oneof(hex(32), hex(16), hex(31), fc.string(), fc.constantFrom("", '"'.repeat(32), "é".repeat(32)));
    fc.assert(
      fc.property(hex(32), hex(16), (t, s) => {
        expect(written((w) => w.uuid(t))).toBe(JSON.stringify(traceUuid(t)));
        expect(written((w) => w.uuid(t, s))).toBe(JSON.stringify(spanUuid(t, s)));
        // A span id equal to the trace id's last 16 digits: inverted, never the trace's uuid.
        expect(written((w) => w.uuid(t, t.slice(16)))).toBe(JSON.stringify(spanUuid(t, t.slice(16))));
      }),
    );
    // Ids with a char that is not a plain hex digit, anywhere: the writer gives up where it meets
    // it and the formatter's text goes instead, whole.
    const w = new JsonBytes(16);
    for (const bad of ['"', "é", "\\", "\u0000", "\u007f"]) {
      for (let at = 0; at < 32; at++) {
        const t = `${"a".repeat(at)}${bad}${"b".repeat(31 - at)}`;
        expect(written((x) => x.uuid(t, "0123456789abcdef"), w)).toBe(JSON.stringify(spanUuid(t, "0123456789abcdef")));
        expect(written((x) => x.uuid(t), w)).toBe(JSON.stringify(traceUuid(t)));
        if (at >= 16) expect(written((x) => x.uuid("f".repeat(32), t.slice(16)), w)).toBe(JSON.stringify(spanUuid("f".repeat(32), t.slice(16))));
      }
    }
    fc.assert(
      fc.property(ids, ids, (t, s) => {
        expect(written((w) => w.uuid(t))).toBe(JSON.stringify(traceUuid(t)));
        expect(written((w) => w.uuid(t, s))).toBe(JSON.stringify(spanUuid(t, s)));
      }),
    );
  });

  it("times, one writer across many seconds (the formatter's text); what the formatter cannot format throws as it does", () => {
    const w = new JsonBytes(16);
    const times = fc.tuple(fc.oneof(fc.integer({ min: 0, max: 4_102_444_800 }), fc.constantFrom(0, 1_790_000_000, 8_640_000_000_000)), fc.oneof(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom(0, 999, 1000, 99_999_999, 100_000_000)));
    fc.assert(fc.property(times, (t) => {
        expect(written((x) => x.time(t), w)).toBe(JSON.stringify(hrTimeToIso(t)));
      }), { numRuns: 500 });
    for (const t of [[1_790_000_000, 1_000_000_000], [1_790_000_000, -1], [-1, 5_000]] as [number, number][]) {
      expect(written((x) => x.time(t), w)).toBe(JSON.stringify(hrTimeToIso(t)));
    }
    expect(() => hrTimeToIso([Number.NaN, 0])).toThrow(RangeError);
    expect(() => w.time([Number.NaN, 0])).toThrow(RangeError);
  });

  it("uuids and times after a key: the key's bytes and then the value's, whatever keys, traces and seconds come in turn", () => {
    // Three keys for the two kept heads of each kind: each key's head is made again when it was let go.
    const keys = ['{"uuid":', ',"parentUuid":', ',"x":'].map((k) => ({ text: k, bytes: ascii(k) }));
    const ids = fc.oneof(hex(32), hex(16), fc.constantFrom(`${"a".repeat(31)}"`, `${"b".repeat(16)}é${"c".repeat(15)}`));
    const w = new JsonBytes(16);
    const step = fc.tuple(fc.nat(2), fc.constantFrom("trace", "span", "time"), fc.constantFrom("0".repeat(32), "1".repeat(32)), ids, hex(16), fc.integer({ min: 1_790_000_000, max: 1_790_000_002 }), fc.integer({ min: 0, max: 999_999_999 }));
    fc.assert(fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        w.reset();
        let expected = "";
        for (const [k, kind, sameTrace, other, spanId, seconds, nanos] of steps) {
          const key = keys[k]!;
          const traceId = other.length === 32 && k === 2 ? other : sameTrace;
          if (kind === "trace") {
            w.keyUuid(key.bytes, traceId);
            expected += key.text + JSON.stringify(traceUuid(traceId));
          } else if (kind === "span") {
            w.keyUuid(key.bytes, traceId, spanId);
            expected += key.text + JSON.stringify(spanUuid(traceId, spanId));
          } else {
            w.keyTime(key.bytes, [seconds, nanos]);
            expected += key.text + JSON.stringify(hrTimeToIso([seconds, nanos]));
          }
        }
        expect(w.text()).toBe(expected);
      }), { numRuns: 300 });
  });

  it("the same without Buffer (edge runtimes): a Uint8Array and TextEncoder", async () => {
    vi.resetModules();
    vi.stubGlobal("Buffer", undefined);
    try {
      const { JsonBytes: Edge } = await import("../../src/encode/json-bytes.js");
      const w = new Edge(16);
      fc.assert(fc.property(text, fc.jsonValue(), (s, v) => {
        const both = (x: JsonBytes) => {
            x.string(s);
            x.value(v);
          };
          expect(written(both, w as unknown as JsonBytes)).toBe(JSON.stringify(s) + JSON.stringify(v));
      }));
      w.reset();
      w.string("a key svc_local_proj_SECRET inside");
      expect(w.includes("svc_local_proj_SECRET")).toBe(true);
      expect(w.includes("svc_local_proj_OTHER")).toBe(false);
      expect(w.copy()).toBeInstanceOf(Uint8Array);
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });

  it("finds a secret only in what was written (not in what an earlier, longer body left)", () => {
    const w = new JsonBytes(16);
    w.string(`${"x".repeat(100)}the SECRET_KEY_1234`);
    expect(w.includes("SECRET_KEY_1234")).toBe(true);
    w.reset();
    w.string("short");
    expect(w.includes("SECRET_KEY_1234")).toBe(false);
  });
});
