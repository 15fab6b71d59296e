import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepth } from "../../src/devserver/json-body.js";
import { TimeSlicer } from "../../src/devserver/time-slicer.js";

/** The nesting depth by its definition, one character at a time (strings skipped, `\` escaping one character). */
function depthByDefinition(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{" || c === "[") {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === "}" || c === "]") {
      depth--;
    }
  }
  return max;
}

describe("jsonDepth", () => {
  it("agrees with the character-by-character definition on any text, malformed included", async () => {
    // Texts dense in quotes, backslashes and brackets: escaped quotes, escaped backslashes, unterminated strings.
    const text = fc.array(fc.constantFrom('"', "\\", "[", "]", "{", "}", "a", ",", ":", '\\"', '\\\\"'), { maxLength: 60 }).map((parts) => parts.join(""));
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 0, max: 8 }), async (t, limit) => {
        expect(await jsonDepth(t, limit, new TimeSlicer(0))).toBe(depthByDefinition(t, limit));
        expect(await jsonDepth(t)).toBe(depthByDefinition(t, Number.POSITIVE_INFINITY));
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees on real JSON with strings holding brackets and escapes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (v) => {
        const t = JSON.stringify(v);
        expect(await jsonDepth(t)).toBe(depthByDefinition(t, Number.POSITIVE_INFINITY));
      }),
      { numRuns: 500 },
    );
  });
});
