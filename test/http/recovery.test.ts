import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { flush, observe, shutdown, stats } from "../../src/index.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await shutdown(0);
  await proxy?.close();
  await dev?.close();
  proxy = undefined;
  dev = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Lifecycle issue, defect 12: after an outage, the exporter noticed recovery only at each
// request's next backoff (seconds later, while the queue filled up and dropped new traces).
describe("recovery after an outage", () => {
  it("probes about once a second while down, and drains the queue as soon as the service answers", async () => {
    dev = await startDevServer({ port: 0 });
    let down = true;
    const seenWhileDown: number[] = [];
    proxy = await startFaultProxy(dev.url, (n) => {
      if (!down) return undefined;
      seenWhileDown.push(n);
      return "reset";
    });
    // Long backoffs: without probing, the first retry would come 4 to 8 s after the first failure.
    configureForTest(proxy.url, dev.projectKey, { initialRetryDelayMillis: 8000, maxRetries: 10, batch: { maxSpansPerRequest: 10, concurrency: 2 } });
    const f = observe({ name: "during-outage" }, (i: number) => i);
    for (let i = 0; i < 50; i++) f(i);
    const flushed = flush(60_000);
    const outageMillis = 2500;
    await sleep(outageMillis);
    down = false;
    const recoveredAt = Date.now();
    const result = await flushed;
    const drainMillis = Date.now() - recoveredAt;
    expect(result).toMatchObject({ ok: true, delivered: 50 });
    expect(drainMillis).toBeLessThan(1500);
    // Bounded probing: the two first attempts, then at most one early retry a second.
    expect(seenWhileDown.length).toBeLessThanOrEqual(2 + Math.ceil(outageMillis / 1000) + 1);
    expect(Object.values(dev.state.traces)).toHaveLength(50);
    expect(stats()).toMatchObject({ tracesDropped: 0, tracesFailed: 0 });
  });

  it("a failed probe costs no retry: a long outage does not use up maxRetries", async () => {
    dev = await startDevServer({ port: 0 });
    let down = true;
    proxy = await startFaultProxy(dev.url, () => (down ? "reset" : undefined));
    configureForTest(proxy.url, dev.projectKey, { initialRetryDelayMillis: 8000, maxRetries: 1 });
    await observe({ name: "patient" }, async () => 1)();
    const flushed = flush(60_000);
    await sleep(3200); // three probes fail; the one retry allowed is still waiting
    down = false;
    expect(await flushed).toMatchObject({ ok: true, delivered: 1 });
  });

  it("never probes through a 429's Retry-After", async () => {
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on("end", () => {
        res.writeHead(requests === 1 ? 429 : 200, { "retry-after": "3", "content-type": "application/json" });
        res.end(JSON.stringify({ success: requests !== 1 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    try {
      configureForTest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "svc_local_proj_KEY");
      await observe({ name: "polite" }, async () => 1)();
      const started = Date.now();
      const flushed = flush(60_000);
      await sleep(2000);
      expect(requests).toBe(1);
      expect(await flushed).toMatchObject({ ok: true });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
