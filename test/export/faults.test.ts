import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, flush, observe, shutdown, stats, updateCurrentSpan } from "../../src/index.js";
import { type Fault, type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { InstantClock } from "../helpers/manual-clock.js";
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

const faults: Fault[] = ["500", "502", "503", "429", "reset", "stall", "slow-body", "store-then-reset"];

describe("fault injection", () => {
  it("delivers every trace exactly once with a fault on every third request", async () => {
    dev = await startDevServer({ port: 0 });
    let k = 0;
    proxy = await startFaultProxy(dev.url, (n) => (n % 3 === 2 ? faults[k++ % faults.length] : undefined));
    const clock = new InstantClock();
    configureForTest(proxy.url, dev.projectKey, {
      clock,
      maxRetries: 10,
      requestTimeoutMillis: 300, // a stall must end in a timeout, then a retry
      batch: { maxSpansPerRequest: 40, concurrency: 2 },
    });
    const child = observe({ type: "tool", name: "child" }, async (i: number) => {
      updateCurrentSpan({ metadata: { i } });
      return i;
    });
    const root = observe({ type: "agent", name: "faulty" }, async (i: number) => {
      await Promise.all([child(i), child(i + 1)]);
      return currentTraceUuid()!;
    });
    const uuids: string[] = [];
    for (let wave = 0; wave < 10; wave++) {
      uuids.push(...(await Promise.all(Array.from({ length: 60 }, (_, i) => root(wave * 100 + i)))));
    }
    const result = await flush(3_600_000);
    expect(result).toMatchObject({ ok: true, delivered: 600, notDelivered: [], pending: [] });
    // Every fault kind was injected, and survived.
    for (const f of faults) expect(proxy.counts.faults[f], f).toBeGreaterThan(0);
    const stored = uuids.map((u) => dev!.state.traces[u]);
    expect(stored.filter((t) => t === undefined)).toHaveLength(0); // zero losses
    expect(Object.keys(dev.state.traces)).toHaveLength(600); // zero duplicates
    for (const t of stored) expect(t!.spans).toHaveLength(3);
    expect(stats()!.retries).toBeGreaterThan(0);
    expect(stats()!.openTraces).toBe(0); // nothing held once delivered
  });

  it("keeps the app's calls unaffected while the service is down; caps the queue, counts drops, flush reports", async () => {
    const clock = new InstantClock();
    // A port nobody listens on: every connection is refused.
    const logger = configureForTest("http://127.0.0.1:9", "svc_local_proj_down", {
      clock,
      maxRetries: 2,
      batch: { maxQueuedTraces: 50, flushIntervalMillis: 3_600_000, concurrency: 1 },
    });
    const work = observe({ name: "app-work" }, (i: number) => i * 2);
    // Sync calls stay sync and return their value at once, whatever the exporter is doing.
    for (let i = 0; i < 500; i++) expect(work(i)).toBe(i * 2);
    const s = stats()!;
    expect(s.queued).toBeLessThanOrEqual(50);
    expect(s.tracesDropped).toBe(450);
    const result = await flush(3_600_000);
    expect(result.ok).toBe(false);
    expect(result.notDelivered).toHaveLength(50);
    expect(stats()).toMatchObject({ tracesFailed: 50, tracesDropped: 450, openTraces: 0, queued: 0 });
    expect(logger.lines.some((l) => l.includes("450 trace(s) dropped") || l.includes("100 trace(s) dropped"))).toBe(true);
    expect(logger.lines.some((l) => l.startsWith("error:") && l.includes("not delivered"))).toBe(true);
  });
});
