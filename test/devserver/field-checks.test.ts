import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkObject, checkParsedFields, opt, req, type Shape, t, testCaseExtras } from "../../src/protocol/schema.js";

// The emulator checks parsed bodies with checkParsedFields, which skips the checks that plainly
// pass: it must reject exactly what checkObject rejects, with the same message.

const shape: Shape = {
  uuid: req(t.nonEmpty),
  name: req(t.string),
  startTime: req(t.iso),
  endTime: opt(t.iso),
  done: opt(t.boolean),
  score: opt(t.number),
  count: opt(t.nonNegativeInteger),
  metadata: opt(t.record),
  status: opt(t.enumOf(["SUCCESS", "ERRORED"])),
  parentUuid: opt(t.nullable(t.nonEmpty)),
  input: opt(t.any),
  ...testCaseExtras,
};

/** Values that pass some checks and fail others: blank and odd strings, timestamps of every form, non-finite numbers. */
const value = fc.oneof(
  fc.constantFrom("", " ", "\t x", "\u00a0", "x", "SUCCESS", "2026-06-01T10:00:00.123Z", "2026-02-31T00:00:00Z", "2026-06-01T10:00:00+02:00", "2026-06-01T10:00:00"),
  fc.string(),
  fc.double(),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A valid span, some of its fields replaced, dropped or added (so that most objects are one fault away from valid). */
const object = fc
  .record({
    base: fc.record(
      {
        uuid: fc.constantFrom("s1", "x y", "é"),
        name: fc.string({ maxLength: 3 }),
        startTime: fc.constantFrom("2026-06-01T10:00:00.123Z", "2026-06-01T10:00:00Z", "2026-06-30T10:00:00.5+02:00"),
        endTime: fc.constantFrom("2026-06-01T10:00:01Z"),
        metadata: fc.constantFrom({}, { a: 1 }),
        score: fc.double({ noNaN: true, noDefaultInfinity: true }),
      },
      { requiredKeys: ["uuid", "name", "startTime"] },
    ),
    changes: fc.dictionary(fc.constantFrom(...Object.keys(shape)), fc.option(value, { nil: undefined }), { maxKeys: 2 }),
  })
  .map(({ base, changes }) => JSON.parse(JSON.stringify({ ...base, ...changes })) as Record<string, unknown>);

function outcome(check: () => void): string {
  try {
    check();
    return "ok";
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

describe("checkParsedFields", () => {
  it("decides as checkObject does, with the same message, for parsed objects of the shape's keys", () => {
    fc.assert(
      fc.property(object, (o) => {
        expect(outcome(() => checkParsedFields(o, Object.keys(o), shape, "body.x"))).toBe(outcome(() => checkObject(o, shape, "body.x")));
      }),
      { numRuns: 5000 },
    );
  });

  it("passes a span as SDKs send it, and names the first fault in the shape's order", () => {
    const span = { name: "step", uuid: "s1", startTime: "2026-06-01T10:00:00.000Z", endTime: "2026-06-01T10:00:01.000Z" };
    expect(outcome(() => checkParsedFields(span, Object.keys(span), shape, "b"))).toBe("ok");
    expect(outcome(() => checkParsedFields({ ...span, uuid: " " }, Object.keys(span), shape, "b"))).toBe("SchemaError: b.uuid must be a non-empty string");
    const bad = { score: Number.NaN, uuid: " ", startTime: "x" };
    expect(outcome(() => checkParsedFields(bad, Object.keys(bad), shape, "b"))).toBe("SchemaError: b.uuid must be a non-empty string");
  });
});
