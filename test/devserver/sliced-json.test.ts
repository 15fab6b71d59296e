import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonSliced } from "../../src/devserver/sliced-json.js";
import { TimeSlicer } from "../../src/devserver/time-slicer.js";

// Bodies past 64 KB are parsed in pieces (runs of small array items in one native call): the
// result must be JSON.parse's, and malformed text must be refused wherever the fault is.

/** A large document: a trace-like object whose span list holds `n` items of mixed shapes. */
const large = fc
  .record({
    n: fc.integer({ min: 1000, max: 2500 }),
    item: fc.jsonValue({ maxDepth: 2 }),
    pad: fc.string({ maxLength: 40 }),
  })
  .map(({ n, item, pad }) => ({
    uuid: "t",
    spans: Array.from({ length: n }, (_, i) => (i % 7 === 3 ? item : { uuid: `s${i}`, name: pad, at: i, list: [i, `${i}`], nested: { deep: [[]] } })),
    tail: [1, "two", null, true, JSON.parse('{"__proto__":[1]}') as object],
  }));

async function outcome(text: string): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: await parseJsonSliced(text, new TimeSlicer(0)) };
  } catch (err) {
    return { error: err instanceof SyntaxError ? "SyntaxError" : String(err) };
  }
}

describe("parseJsonSliced", () => {
  it("gives JSON.parse's value for large documents, spaced or not", async () => {
    await fc.assert(
      fc.asyncProperty(large, fc.boolean(), async (doc, spaced) => {
        const text = spaced ? JSON.stringify(doc, null, 1) : JSON.stringify(doc);
        expect(text.length).toBeGreaterThan(64 * 1024);
        const { value } = await outcome(text);
        expect(value).toEqual(JSON.parse(text));
        expect(Object.hasOwn((value as { tail: object[] }).tail[4]!, "__proto__")).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it("refuses a large document with one fault wherever it is, as JSON.parse does", async () => {
    const faults = fc.constantFrom("", ",", "]", "}", "{", "[", '"', "x", ":", "\\", " 1", "tru");
    await fc.assert(
      fc.asyncProperty(large, fc.double({ min: 0, max: 1, noNaN: true }), faults, fc.boolean(), async (doc, where, fault, replace) => {
        const good = JSON.stringify(doc);
        const at = Math.floor(where * good.length);
        const text = good.slice(0, at) + fault + good.slice(at + (replace ? 1 : 0));
        let expected: string | undefined;
        try {
          JSON.parse(text);
        } catch {
          expected = "SyntaxError";
        }
        const got = await outcome(text);
        expect(got.error).toBe(expected);
        if (!expected) expect(got.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 150 },
    );
  });
});
