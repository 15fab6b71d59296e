import { describe, expect, it } from "vitest";
import { deliver, flush, observe, shutdown } from "../../src/index.js";

// Issue 48: a public call given the wrong thing throws a TypeError at once, naming the call, the
// value and the fix, as configure() does; it is never read as something else.

type Loose = (...args: unknown[]) => unknown;

describe("observe() misuse names the fix", () => {
  it("observe(undefined) throws at once, saying to pass the function or use @observe(options) on a method", () => {
    expect(() => (observe as Loose)(undefined)).toThrow(
      new TypeError("evaltrace: observe() got undefined; pass the function to wrap (observe(fn) or observe(options, fn)), or use @observe(options) on a class method"),
    );
    expect(() => (observe as Loose)(null)).toThrow(/observe\(\) got null/);
  });

  it("observe() with no argument is still the decorator factory", () => {
    expect(typeof observe()).toBe("function");
  });

  it("observe({ name })(fn): the decorator called as a wrapper says to write observe(options, fn)", () => {
    const decorator = observe({ name: "step" }) as unknown as Loose;
    expect(() => decorator(async () => 1)).toThrow(
      new TypeError("evaltrace: observe(options) returns a decorator for class methods (@observe(options)); to wrap a function, write observe(options, fn)"),
    );
  });

  it("a standard decorator on a getter names the member and its kind", () => {
    const decorator = observe({ name: "x" }) as unknown as Loose;
    expect(() => decorator(() => 1, { kind: "getter", name: "value" })).toThrow(new TypeError("evaltrace: @observe decorates methods only; value is a getter"));
  });
});

describe("flush(), shutdown(), deliver() check their arguments", () => {
  it("flush({ timeoutMillis: 3000 }) throws a TypeError saying to write flush(3000), before anything is flushed", () => {
    expect(() => (flush as Loose)({ timeoutMillis: 3000 })).toThrow(new TypeError("evaltrace: flush(timeoutMillis) takes a number of milliseconds >= 0; got an object; write flush(3000)"));
  });

  it('shutdown("5") and a negative budget throw a TypeError naming the value', () => {
    expect(() => (shutdown as Loose)("5")).toThrow(new TypeError('evaltrace: shutdown(timeoutMillis) takes a number of milliseconds >= 0; got "5"'));
    expect(() => flush(-1)).toThrow(/got number -1/);
  });

  it("deliver(3000) throws a TypeError saying waitUntil comes first and how to pass a budget alone", () => {
    expect(() => (deliver as Loose)(3000)).toThrow(
      new TypeError("evaltrace: deliver(waitUntil, timeoutMillis) takes the platform's waitUntil function first (ctx.waitUntil.bind(ctx)); got number 3000; for a budget alone write deliver(undefined, 3000)"),
    );
  });

  it("valid arguments still resolve, never reject", async () => {
    await expect(flush(0)).resolves.toMatchObject({ ok: true });
    await expect(deliver(undefined, 0)).resolves.toMatchObject({ ok: true });
  });
});
