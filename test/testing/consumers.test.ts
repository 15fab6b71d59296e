// The built package (dist/, run `npx tsup` first) as an app's tests load it: ESM and CommonJS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formats, load, runChild } from "../helpers/child.js";
import { type Recorder, startRecorder } from "../helpers/recorder.js";

let service: Recorder;
beforeAll(async () => {
  service = await startRecorder();
});
afterAll(async () => {
  await service.close();
});

/** An app's test: an agent with a tool, a capture, the matchers called as a runner would. */
const test = `
const tool = observe({ type: "tool", name: "search" }, async (q) => "found " + q);
const agent = observe({ type: "agent", name: "agent" }, async (q) => tool(q));
const capture = captureTraces();
await agent("orders");
capture.stop();
const found = matchers.toHaveSpan.call({ isNot: false }, capture, { type: "tool", name: "search", output: "found orders", parent: { name: "agent" } });
const missing = matchers.toHaveSpan.call({ isNot: false }, capture, { type: "llm" });
const order = matchers.toHaveSpansInOrder.call({ isNot: false }, capture, [{ type: "agent" }, { type: "tool" }]);
await flush();
console.log(JSON.stringify({ found: found.pass, missing: missing.pass, order: order.pass, message: missing.message(), traces: capture.traces().length }));
`;

describe("evaltrace/testing from the built package", () => {
  for (const format of formats) {
    it(`${format}: the matchers find the spans of a captured trace, show the tree on failure, and nothing is sent though a key is set`, async () => {
      const source = `${load(format, "evaltrace", ["observe", "flush"])}\n${load(format, "evaltrace/testing", ["captureTraces", "matchers"])}\n${test}`;
      const child = runChild(format, source, { EVALTRACE_API_KEY: "key-of-the-app", EVALTRACE_BASE_URL: service.url });
      const done = await child.finished;
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      const out = JSON.parse(done.stdout.trim().split("\n").pop()!);
      expect(out).toMatchObject({ found: true, missing: false, order: true, traces: 1 });
      expect(out.message).toContain('trace "agent" SUCCESS (2 spans)\n└─ agent "agent" in="orders" out="found orders"\n   └─ tool "search" in="orders" out="found orders"');
      expect(service.requests).toEqual([]);
    });
  }

  it("a capture made with the CommonJS copy takes the spans of the ESM copy (one process-wide tap)", async () => {
    const source = `import { createRequire } from "node:module";
import { observe } from "evaltrace";
const { captureTraces, matchers } = createRequire(import.meta.url)("evaltrace/testing");
const capture = captureTraces();
await observe({ type: "agent", name: "esm agent" }, async () => 1)();
capture.stop();
console.log(JSON.stringify(matchers.toHaveSpan.call({}, capture, { name: "esm agent" }).pass));`;
    const done = await runChild("esm", source).finished;
    expect(done.stderr).toBe("");
    expect(done.stdout.trim()).toBe("true");
  });
});
