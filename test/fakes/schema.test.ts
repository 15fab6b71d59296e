import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sampleFromSchema } from "../../src/fakes/schema.js";

// The values the fakes put in tool arguments and structured outputs must satisfy the schema the
// app sent, or the SDKs' own parsers (zod in `parse()` helpers) reject them.
describe("sampleFromSchema", () => {
  it.each([
    ["ids and other strings", z.object({ orderId: z.string(), note: z.string() })],
    ["formats", z.object({ email: z.email(), url: z.url(), id: z.uuid(), at: z.iso.datetime(), day: z.iso.date() })],
    ["bounds", z.object({ n: z.number().min(10).max(20), i: z.number().int().gt(3), s: z.string().min(30).max(40), short: z.string().max(3) })],
    ["enums, literals, nullables, unions", z.object({ e: z.enum(["b", "c"]), l: z.literal("x"), nul: z.string().nullable(), u: z.union([z.number(), z.string()]), b: z.boolean() })],
    ["arrays", z.object({ tags: z.array(z.enum(["a", "b", "c"])).min(2), few: z.array(z.number()).max(0), items: z.array(z.object({ k: z.string() })) })],
    ["nested objects and records", z.object({ a: z.object({ b: z.object({ c: z.number() }) }) })],
  ])("%s satisfy the zod schema they came from", (_name, schema) => {
    const value = sampleFromSchema(z.toJSONSchema(schema));
    expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(true);
  });

  it("follows local $refs, takes the first non-null anyOf branch, merges allOf, reads OpenAPI upper-case types", () => {
    const root = {
      type: "object",
      properties: { node: { $ref: "#/$defs/Node" }, either: { anyOf: [{ type: "null" }, { type: "integer", minimum: 2 }] }, both: { allOf: [{ properties: { a: { type: "STRING" } } }, { properties: { b: { type: "BOOLEAN" } } }] } },
      $defs: { Node: { type: "object", properties: { name: { type: "string" }, child: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] } } } },
    };
    const v = sampleFromSchema(root) as { node: { name: string }; either: number; both: unknown };
    expect(v.node.name).toBe("Orders ship in 2 days.");
    expect(v.either).toBe(2);
    expect(v.both).toEqual({ a: "Orders ship in 2 days.", b: true });
    expect(JSON.stringify(v).length).toBeLessThan(5000);
  });

  it("no schema or an empty one gives {}", () => {
    expect(sampleFromSchema(undefined)).toEqual({});
    expect(sampleFromSchema({})).toEqual({});
  });
});
