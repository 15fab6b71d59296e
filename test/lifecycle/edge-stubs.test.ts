import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { configure, flush, observe, shutdown } from "../../src/index.js";
import { memoryLogger } from "../helpers/sdk.js";

// Issue 49: Next.js's edge runtime defines Node's `process.on` and `setImmediate` as stubs that
// throw ("A Node.js API is used (...) which is not supported in the Edge Runtime"). Here the
// real functions are replaced by such stubs (Node's, not an SDK's: what the edge sandbox does).
const edgeStub = (api: string) => () => {
  throw new Error(`A Node.js API is used (${api}) which is not supported in the Edge Runtime.`);
};

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const stored = (name: string) => Object.values(dev.state.traces).filter((t) => t.fields.name === name);

describe("Next.js edge runtime stubs that throw", () => {
  it("configure() with exit hooks does not throw when process.on throws, installs none, and the next traced call records a complete trace", async () => {
    vi.spyOn(process, "on").mockImplementation(edgeStub("process.on"));
    const before = process.listeners("SIGTERM").length;
    const logger = memoryLogger();
    expect(() => configure({ apiKey: dev.projectKey, baseUrl: dev.url, registerExitHooks: true, logger })).not.toThrow();
    expect(process.listeners("SIGTERM").length).toBe(before);
    const llm = observe({ type: "llm", name: "edge-llm", model: "m" }, async (q: string) => `re: ${q}`);
    const agent = observe({ type: "agent", name: "edge-agent" }, async (q: string) => llm(q));
    expect(await agent("hi")).toBe("re: hi");
    vi.restoreAllMocks();
    expect((await flush(5_000)).ok).toBe(true);
    const [trace] = stored("edge-agent");
    expect(trace?.spans.map((s) => s.name).sort()).toEqual(["edge-agent", "edge-llm"]);
    expect(stored("edge-llm")).toEqual([]);
    expect(logger.lines.filter((l) => l.startsWith("error"))).toEqual([]);
  });

  it("batches and delivers when setImmediate throws, with no 'could not build a batch' error", async () => {
    vi.spyOn(globalThis, "setImmediate").mockImplementation(edgeStub("setImmediate") as never);
    const logger = memoryLogger();
    configure({ apiKey: dev.projectKey, baseUrl: dev.url, registerExitHooks: false, logger });
    const handler = observe({ name: "edge-batch" }, async (i: number) => i * 2);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => handler(i)));
    expect(answers).toEqual([2, 4, 6, 8, 10]);
    const result = await flush(5_000);
    expect(result.ok).toBe(true);
    expect(stored("edge-batch")).toHaveLength(5);
    expect(logger.lines.filter((l) => l.includes("could not build a batch"))).toEqual([]);
  });
});
