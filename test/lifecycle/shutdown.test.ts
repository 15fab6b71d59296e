import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, observe, shutdown, stats } from "../../src/index.js";
import { type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer | undefined;
let recorder: Recorder | undefined;
afterEach(async () => {
  await shutdown(0);
  await dev?.close();
  await recorder?.close();
  dev = undefined;
  recorder = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Lifecycle issue, defect 6: a trace that ended during shutdown() was lost after 10 s of retries
// against a destroyed HTTP client, while shutdown() had already resolved ok: true.
describe("shutdown()", () => {
  it("delivers a trace that ends while it drains, and says so", async () => {
    dev = await startDevServer({ port: 0 });
    configureForTest(dev.url, dev.projectKey);
    const slow = observe({ name: "ends-during-shutdown" }, async () => {
      await sleep(100);
      return currentTraceUuid()!;
    });
    await observe({ name: "before" }, async () => 1)();
    const pending = slow();
    const result = await shutdown();
    const uuid = await pending;
    expect(result).toMatchObject({ ok: true, delivered: 2, notDelivered: [], pending: [] });
    expect(dev.state.traces[uuid]).toBeDefined();
    expect(stats()).toMatchObject({ tracesDelivered: 2, tracesDropped: 0, enabled: false });
  });

  it("reports what it could not deliver, and nothing retries after it resolved", async () => {
    recorder = await startRecorder(() => "reset");
    configureForTest(recorder.url, "svc_local_proj_KEY", { initialRetryDelayMillis: 50, maxRetries: 20 });
    await observe({ name: "down" }, async () => 1)();
    const slow = observe({ name: "late" }, async () => {
      await sleep(50);
      return 1;
    });
    const late = slow();
    const started = Date.now();
    const result = await shutdown(400);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.ok).toBe(false);
    expect(result.pending.length + result.notDelivered.length).toBe(2);
    await late;
    const after = recorder.requests.length;
    await sleep(1000);
    expect(recorder.requests.length).toBe(after);
  });

  it("is idempotent: a second call gets the same result", async () => {
    dev = await startDevServer({ port: 0 });
    configureForTest(dev.url, dev.projectKey);
    await observe({ name: "once" }, async () => 1)();
    const [a, b] = await Promise.all([shutdown(), shutdown()]);
    expect(a).toBe(b);
    expect(a).toMatchObject({ ok: true, delivered: 1 });
  });
});
