// Jest is not installed here: its compatibility is tested through the matcher contract Jest
// documents for `expect.extend` (https://jestjs.io/docs/expect#expectextendmatchers): a matcher is
// called with `this` = { isNot, promise, utils, equals ... } and what `expect()` got, returns
// `{ pass, message }`, and Jest throws message() when `pass === isNot`.
import { describe, expect, it } from "vitest";
import { configure, observe } from "../../src/index.js";
import { captureTraces, type MatcherContext, type MatcherResult, matchers } from "../../src/testing/index.js";

configure({ registerExitHooks: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });

/** The `this` Jest gives a matcher (jest-matcher-utils' helpers, reduced to what they print). */
function jestThis(isNot: boolean): MatcherContext & { promise: string; equals: (a: unknown, b: unknown) => boolean } {
  return {
    isNot,
    promise: "",
    equals: (a, b) => JSON.stringify(a) === JSON.stringify(b),
    utils: {
      matcherHint: (name, received = "received", expected = "expected", options = {}) => `expect(${received})${options.isNot ? ".not" : ""}${name.replace(/^\.not/, "")}(${expected})`,
      printExpected: (value) => `<e>${JSON.stringify(value)}</e>`,
      printReceived: (value) => `<r>${JSON.stringify(value)}</r>`,
    },
  };
}

/** What Jest's expect does with a custom matcher's result: throws its message when `pass === isNot`. */
function jestAssert(result: MatcherResult, isNot: boolean): void {
  if (result.pass === isNot) throw new Error(result.message());
}

const agent = observe({ type: "agent", name: "agent" }, async () => {
  await observe({ type: "tool", name: "search" }, async () => "found")();
  return "done";
});

describe("the matchers under Jest's matcher contract", () => {
  it("return { pass, message } with Jest's this, and read isNot for the message", async () => {
    const capture = captureTraces();
    await agent();
    capture.stop();
    const yes = matchers.toHaveSpan.call(jestThis(false), capture, { type: "tool", name: "search" });
    expect(yes.pass).toBe(true);
    jestAssert(yes, false);
    const negated = matchers.toHaveSpan.call(jestThis(true), capture, { type: "tool" });
    expect(negated.pass).toBe(true);
    expect(() => jestAssert(negated, true)).toThrow(/^expect\(capture\)\.not\.toHaveSpan\(\)\n\nExpected no span matching <e>\{"type":"tool"\}<\/e>, found 1:\n {2}- tool "search"/);
    const missing = matchers.toHaveSpan.call(jestThis(false), capture, { type: "llm" });
    expect(missing.pass).toBe(false);
    expect(() => jestAssert(missing, false)).toThrow(/Expected a span matching <e>\{"type":"llm"\}<\/e>\nNearest: /);
  });

  it("every matcher keeps the contract", async () => {
    const capture = captureTraces();
    await agent();
    capture.stop();
    const ctx = jestThis(false);
    const results = [
      matchers.toHaveSpansInOrder.call(ctx, capture, [{ name: "agent" }, { name: "search" }]),
      matchers.toHaveChildSpan.call(ctx, capture, { name: "agent" }, { name: "search" }),
      matchers.toHaveSpanCount.call(ctx, capture, {}, 2),
      matchers.toHaveNoErroredSpans.call(ctx, capture),
    ];
    for (const r of results) {
      expect(Object.keys(r).sort()).toEqual(["message", "pass"]);
      expect(r.pass).toBe(true);
      expect(typeof r.message()).toBe("string");
    }
  });

  it("work with a runner that gives no utils: plain text messages", async () => {
    const capture = captureTraces();
    await agent();
    capture.stop();
    const r = matchers.toHaveSpanCount.call({}, capture.traces(), { type: "tool", name: /sea/ }, 3);
    expect(r.pass).toBe(false);
    expect(r.message()).toMatch(/^expect\(capture\)\.toHaveSpanCount\(\.\.\.\)\n\nExpected 3 span\(s\) matching \{ type: "tool", name: \/sea\/ \}, found 1:/);
  });
});
