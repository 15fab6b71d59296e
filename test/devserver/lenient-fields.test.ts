import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkFields } from "../../src/devserver/lenient.js";
import { type Check, checkObject, isPlainObject, opt, req, SchemaError, type Shape, t } from "../../src/protocol/schema.js";

// checkFields copies nothing when every key is known and re-checks in lenient mode only the fields
// the lenient shape relaxes: what it accepts, rejects and notes must be what the plain way gives.

const strictShape: Shape = { uuid: req(t.nonEmpty), name: opt(t.string), input: opt(t.string), tokens: opt(t.nonNegativeInteger), metadata: opt(t.record) };
const fractional: Check = (v, p) => {
  if (typeof v !== "number" || !(v >= 0)) throw new SchemaError(`${p} must be a non-negative number`);
};
const lenientShape: Shape = { ...strictShape, input: opt(t.any), tokens: opt(fractional) };

/** The plain way: copy the known fields (`__proto__` never one), check them, then try every strict field the lenient shape has. */
function plainCheckFields(value: unknown, strict: boolean, note: (line: string) => void): void {
  if (!isPlainObject(value)) throw new SchemaError("b must be an object");
  const shape = strict ? strictShape : lenientShape;
  const known: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) {
      known[key] = value[key];
      continue;
    }
    // `__proto__` is refused in lenient mode too (issue 47: it would become the prototype of a copy).
    if (strict || key === "__proto__") throw new SchemaError(`unknown field b.${key}`);
    note(`ignored unknown field b.${key} (strict mode rejects it)`);
  }
  checkObject(known, shape, "b");
  if (strict) return;
  for (const [key, field] of Object.entries(strictShape)) {
    const v = known[key];
    if (v === undefined || !Object.hasOwn(lenientShape, key)) continue;
    try {
      field.check(v, `b.${key}`);
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      note(`accepted ${err.message} as the live service does (strict mode rejects it)`);
    }
  }
}

function run(check: (note: (line: string) => void) => void): { notes: string[]; error?: string } {
  const notes: string[] = [];
  try {
    check((line) => notes.push(line));
    return { notes };
  } catch (err) {
    return { notes, error: (err as Error).message };
  }
}

const value = fc.oneof(fc.constantFrom("", " ", "x", 1.5, 2, -1, null, {}, [], { a: 1 }), fc.jsonValue({ maxDepth: 1 }));
const body = fc
  .dictionary(fc.constantFrom("uuid", "name", "input", "tokens", "metadata", "traceUuid", "testCaseId", "constructor", "__proto__"), value)
  .map((o) => JSON.parse(JSON.stringify(o)) as unknown);

describe("checkFields", () => {
  it("accepts, rejects and notes as the plain copy-and-check way, in both modes", () => {
    fc.assert(
      fc.property(body, fc.boolean(), (b, strict) => {
        const got = run((note) => checkFields(b, strictShape, lenientShape, "b", { strict, note }));
        expect(got).toEqual(run((note) => plainCheckFields(b, strict, note)));
      }),
      { numRuns: 5000 },
    );
  });
});
