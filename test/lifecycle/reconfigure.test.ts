import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, flush, observe, shutdown, stats, updateCurrentTrace } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer | undefined;
afterEach(async () => {
  await shutdown(0);
  await dev?.close();
  dev = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Found in review of the lifecycle change: a trace running across a configure() was split
// between two runtimes (its children went to the new one, which never saw its root), leaking a
// slot for good; and shutdown() stopped recording the very work it waited for.
describe("a running trace stays whole", () => {
  it("across a configure(): it ends in the runtime it started in, and flush() covers both", async () => {
    dev = await startDevServer({ port: 0 });
    const options = { maxOpenTraces: 1 };
    configureForTest(dev.url, dev.projectKey, options);
    const child = observe({ name: "child" }, () => 1);
    const root = observe({ name: "root" }, async () => {
      await sleep(50);
      child();
      return currentTraceUuid()!;
    });
    const running = root();
    configureForTest(dev.url, dev.projectKey, options); // a key rotation, say, while a request runs
    const uuid = await running;
    expect(await flush()).toMatchObject({ ok: true, delivered: 1 });
    expect(dev.state.traces[uuid]!.spans.map((s) => s.name).sort()).toEqual(["child", "root"]);
    // The new runtime's one slot is free.
    const fresh = observe({ name: "fresh" }, () => currentTraceUuid())();
    expect(fresh).toBeDefined();
    expect(await flush()).toMatchObject({ ok: true, delivered: 1 });
    expect(stats()).toMatchObject({ tracesNotRecorded: 0, openTraces: 0 });
  });

  it("while shutdown() drains: what the running work does next is recorded", async () => {
    dev = await startDevServer({ port: 0 });
    configureForTest(dev.url, dev.projectKey);
    const llm = observe({ type: "llm", name: "llm" }, async () => "reply");
    const request = observe({ type: "agent", name: "request" }, async () => {
      await sleep(100);
      const out = await llm();
      updateCurrentTrace({ tags: ["drained"], output: out });
      return currentTraceUuid()!;
    });
    const running = request();
    await sleep(10);
    const result = await shutdown(2000);
    const uuid = await running;
    expect(result).toMatchObject({ ok: true, delivered: 1 });
    const t = dev.state.traces[uuid]!;
    expect(t.spans.map((s) => s.name).sort()).toEqual(["llm", "request"]);
    expect(t.fields.tags).toEqual(["drained"]);
    // New traces are not recorded once shutdown began.
    expect(observe({ name: "after" }, () => currentTraceUuid())()).toBeUndefined();
  });
});
