import { type Context, createContextKey, ROOT_CONTEXT } from "@opentelemetry/api";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { LinkedContext } from "../../src/tracing/linked-context.js";

// A linked context must read exactly as OpenTelemetry's own context does after the same
// operations, whatever they are, however long the chain.
const keys = ["a", "b", "c", "d"].map((k) => createContextKey(`linked-context test ${k}`));
const op = fc.oneof(
  fc.record({ kind: fc.constant("link" as const), key: fc.nat(3), value: fc.oneof(fc.integer(), fc.constant(undefined)) }),
  fc.record({ kind: fc.constant("set" as const), key: fc.nat(3), value: fc.oneof(fc.integer(), fc.constant(undefined)) }),
  fc.record({ kind: fc.constant("delete" as const), key: fc.nat(3), value: fc.constant(undefined) }),
);

function reads(ctx: Context): unknown[] {
  return keys.map((k) => ctx.getValue(k));
}

describe("LinkedContext", () => {
  it("reads as OpenTelemetry's context after any sequence of links, sets and deletes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let ours: Context = ROOT_CONTEXT;
        let theirs: Context = ROOT_CONTEXT;
        const history: [Context, Context][] = [];
        for (const { kind, key, value } of ops) {
          const k = keys[key]!;
          if (kind === "link") ours = new LinkedContext(ours, k, value);
          else if (kind === "set") ours = ours.setValue(k, value);
          else ours = ours.deleteValue(k);
          theirs = kind === "delete" ? theirs.deleteValue(k) : theirs.setValue(k, value);
          history.push([ours, theirs]);
          expect(reads(ours)).toEqual(reads(theirs));
        }
        // Contexts are immutable: what came before still reads as it did.
        for (const [o, t] of history) expect(reads(o)).toEqual(reads(t));
      }),
      { numRuns: 500 },
    );
  });

  it("never walks more than a few links, however deep the nesting", () => {
    let ctx: Context = ROOT_CONTEXT.setValue(keys[0]!, "root");
    for (let i = 0; i < 10_000; i++) ctx = new LinkedContext(ctx, keys[1]!, i);
    const walk = vi.spyOn(LinkedContext.prototype, "getValue");
    try {
      expect(ctx.getValue(keys[0]!)).toBe("root");
      expect(ctx.getValue(keys[1]!)).toBe(9_999);
      // One call for the second read, at most nine for the first (a flat copy every 9 links).
      expect(walk.mock.calls.length).toBeLessThanOrEqual(10);
    } finally {
      walk.mockRestore();
    }
  });

  it("keeps chains short across the ESM and CommonJS copies of the package, which link to each other's contexts", async () => {
    // A second copy of the module, as the other module format loads it: its own class.
    const copy: string = "../../src/tracing/linked-context.js?copy";
    const other = (await import(copy)) as typeof import("../../src/tracing/linked-context.js");
    expect(other.LinkedContext).not.toBe(LinkedContext);
    let ctx: Context = ROOT_CONTEXT.setValue(keys[0]!, "root");
    for (let i = 0; i < 10_000; i++) ctx = i % 2 ? new LinkedContext(ctx, keys[1]!, i) : new other.LinkedContext(ctx, keys[1]!, i);
    const ours = vi.spyOn(LinkedContext.prototype, "getValue");
    const theirs = vi.spyOn(other.LinkedContext.prototype, "getValue");
    try {
      expect(ctx.getValue(keys[0]!)).toBe("root");
      expect(ours.mock.calls.length + theirs.mock.calls.length).toBeLessThanOrEqual(10);
      expect(ctx.deleteValue(keys[1]!).getValue(keys[0]!)).toBe("root");
    } finally {
      ours.mockRestore();
      theirs.mockRestore();
    }
  });
});

