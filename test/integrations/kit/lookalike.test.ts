import { expect, it } from "vitest";
import { lookalike } from "../../../src/integrations/kit/lookalike.js";

it("lookalike of a method without a prototype: no prototype either, its name and length, and it passes on the caller's this", () => {
  const holder = {
    base: 40,
    add(n: number) {
      return this.base + n;
    },
  };
  const stand = lookalike(holder.add, function (this: unknown, ...args: unknown[]) {
    return holder.add.apply(this as typeof holder, args as [number]);
  });
  expect(Object.hasOwn(stand, "prototype")).toBe(false);
  expect([stand.name, stand.length]).toEqual(["add", 1]);
  expect(stand.call({ base: 1 }, 2)).toBe(3);
});

it("lookalike of a function with a prototype keeps one, and passes on this", () => {
  function Named(this: { v?: number }, v: number) {
    return (this?.v ?? 0) + v;
  }
  const stand = lookalike(Named, function (this: unknown, ...args: unknown[]) {
    return Named.apply(this as { v: number }, args as [number]);
  });
  expect(Object.hasOwn(stand, "prototype")).toBe(true);
  expect(stand.call({ v: 2 }, 3)).toBe(5);
});
