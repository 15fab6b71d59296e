import type { Span } from "@opentelemetry/api";
import { context } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInstrumentation } from "../../src/auto/instrumentation.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { EvaltraceSpanProcessor, shutdown, stats } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

// What fails inside evaltrace is caught so the app never sees it, and is counted
// (stats().internalErrors) and logged, never silent.
let dev: DevServer;
const warnings: string[] = [];
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey, { logger: { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} } });
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

describe("failures inside evaltrace", () => {
  it("a span processor callback that fails on a malformed span does not throw, and is counted in stats().internalErrors and logged naming where", () => {
    const before = stats().internalErrors;
    const processor = new EvaltraceSpanProcessor();
    const hostile = new Proxy({} as Span, {
      get() {
        throw new Error("hostile span");
      },
    });
    expect(() => processor.onStart(hostile as never, context.active())).not.toThrow();
    expect(stats().internalErrors).toBe(before + 1);
    expect(warnings.some((w) => w.includes("EvaltraceSpanProcessor.onStart") && w.includes("hostile span"))).toBe(true);
  });

  it("a zero-code hook that fails on a module's exports leaves the module as it was, and is counted and logged naming the package", () => {
    const before = stats().internalErrors;
    const made = createInstrumentation("openai", { packageName: "some-sdk", versions: ["*"], entry: true }, () => ({
      library: "openai",
      packageName: "some-sdk",
      versions: ["*"],
      onLoad() {
        throw new Error("unexpected exports");
      },
    }));
    const exports = { Client: class {} };
    const patch = made.targets[0]!.onLoad;
    expect(patch(exports)).toBe(exports);
    expect(stats().internalErrors).toBe(before + 1);
    expect(warnings.some((w) => w.includes("zero-code instrumentation of some-sdk") && w.includes("unexpected exports"))).toBe(true);
  });

  it("is logged at a part's 1st, 10th and 100th failure only (200 failures: 3 lines), so a steady failure never floods the log; all 200 counted", async () => {
    const { reportInternalError, internalErrorCount } = await import("../../src/util/internal-errors.js");
    const logged: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => logged.push(m), error() {} };
    const start = internalErrorCount();
    for (let i = 0; i < 200; i++) reportInternalError("test part", new Error("again"), logger);
    expect(logged).toHaveLength(3);
    expect(internalErrorCount()).toBe(start + 200);
  });
});
