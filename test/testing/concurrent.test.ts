import { afterAll, describe, expect, it } from "vitest";
import { configure, observe } from "../../src/index.js";
import { captureTraces, matchers } from "../../src/testing/index.js";

expect.extend(matchers);
configure({ registerExitHooks: false, logger: { debug() {}, info() {}, warn() {}, error() {} } });

const step = observe({ type: "tool", name: "step" }, async (who: string) => {
  await new Promise((r) => setTimeout(r, 5));
  return who;
});
const agent = observe({ type: "agent", name: "agent" }, async (who: string) => step(who));

let running = 0;
let mostAtOnce = 0;
afterAll(() => {
  // The tests did overlap: their captures ran at the same time.
  expect(mostAtOnce).toBeGreaterThan(1);
});

// Vitest runs these at the same time, in one process: each capture gets its own test's traces.
describe.concurrent("captures in concurrent tests", () => {
  for (const who of ["first", "second", "third"]) {
    it(`the ${who} test's capture holds only the ${who} test's traces`, async () => {
      const capture = captureTraces();
      mostAtOnce = Math.max(mostAtOnce, ++running);
      for (let i = 0; i < 3; i++) await agent(who);
      running--;
      capture.stop();
      expect(capture).toHaveSpanCount({ type: "agent" }, 3);
      expect(capture).toHaveSpanCount({ type: "tool", output: who }, 3);
      expect(capture.traces().every((t) => t.input === who)).toBe(true);
    });
  }
});
