import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import {
  currentSpanUuid,
  currentTraceUuid,
  evaluateSpan,
  evaluateThread,
  evaluateTrace,
  flush,
  observe,
  shutdown,
  stats,
  updateCurrentSpan,
  updateCurrentTrace,
} from "../../src/index.js";
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

  it("keeps the app's calls unaffected while nothing listens; caps the queue, counts drops, flush reports them pending, shutdown gives them up", async () => {
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
    // Nothing ever answered there and nothing listens: the flush does not wait out the retries
    // (issue 48); they are given up at shutdown.
    const result = await flush(3_600_000);
    expect(result.ok).toBe(false);
    expect(result.nothingAnswers).toMatch(/ECONNREFUSED/);
    expect(result.pending).toHaveLength(50);
    const final = await shutdown(3_600_000);
    expect(final.ok).toBe(false);
    expect(final.pending.length + final.notDelivered.length).toBe(50);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stats()).toMatchObject({ tracesFailed: 50, tracesDropped: 450, openTraces: 0, queued: 0 });
    expect(logger.lines.some((l) => l.includes("450 trace(s) dropped") || l.includes("100 trace(s) dropped"))).toBe(true);
    expect(logger.lines.some((l) => l.startsWith("error:") && l.includes("not delivered"))).toBe(true);
  });

  it("a run with every fault, the first answer of every request kind lost, and stuck spans: each trace and job exactly once, every drop counted", async () => {
    dev = await startDevServer({ port: 0 });
    const api = (path: string, body: unknown) =>
      fetch(dev!.url + path, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: dev!.projectKey }, body: JSON.stringify(body) });
    await api("/v1/metric-collections", { name: "conversation", multiTurn: true, metricSettings: [{ metric: { name: "Turn Relevancy" } }] });
    await api("/v1/metric-collections", { name: "answers", multiTurn: false });
    const firstOfKind = new Set<string>();
    let k = 0;
    proxy = await startFaultProxy(dev.url, (n, req) => {
      const kind = req.url.startsWith("/v1/evaluate/") ? req.url.split("/").slice(0, 4).join("/") : `${req.method} ${req.url.startsWith("/v1/traces/") ? "PUT" : req.url}`;
      if (!firstOfKind.has(kind)) {
        firstOfKind.add(kind);
        return "store-then-reset";
      }
      return n % 3 === 2 ? faults[k++ % faults.length] : undefined;
    });
    configureForTest(proxy.url, dev.projectKey, {
      initialRetryDelayMillis: 5,
      maxRetryDelayMillis: 50,
      maxRetries: 20,
      requestTimeoutMillis: 300,
      maxTraceDurationMillis: 400,
      batch: { maxSpansPerRequest: 40, concurrency: 2, maxQueuedTraces: 100_000 },
    });
    const tool = observe({ type: "tool", name: "tool" }, async (i: number) => i);
    const late = observe({ type: "tool", name: "late" }, async () => {
      await new Promise((r) => setTimeout(r, 30));
      updateCurrentTrace({ tags: ["late"] });
    });
    const stuck = observe({ type: "llm", name: "stuck" }, () => new Promise(() => {}));
    let spanUuid = "";
    const turn = observe({ type: "agent", name: "turn" }, async (i: number) => {
      updateCurrentTrace({ threadId: `t-${i % 5}` });
      if (i === 8) spanUuid = currentSpanUuid()!;
      await tool(i);
      if (i % 10 === 0) void late();
      if (i % 25 === 0) void stuck();
      return currentTraceUuid()!;
    });
    const uuids: string[] = [];
    for (let wave = 0; wave < 5; wave++) uuids.push(...(await Promise.all(Array.from({ length: 40 }, (_, i) => turn(wave * 40 + i)))));
    await new Promise((r) => setTimeout(r, 600)); // the stuck spans pass maxTraceDurationMillis
    const outcomes = await Promise.all([
      evaluateThread("t-1", { metricCollection: "conversation" }),
      evaluateTrace(uuids[7]!, { metricCollection: "answers" }),
      evaluateSpan(spanUuid, { metricCollection: "answers" }),
    ]);
    const result = await flush(120_000);
    expect(result).toMatchObject({ ok: true, notDelivered: [], pending: [] });
    expect(outcomes.map((o) => o.status)).toEqual(["delivered", "delivered", "delivered"]);
    for (const f of faults) expect(proxy.counts.faults[f], f).toBeGreaterThan(0);
    expect(proxy.counts.faults["store-then-reset"]).toBeGreaterThanOrEqual(4);
    // Every trace exactly once, whole: the late spans and tags once, stuck spans sent unfinished.
    expect(Object.keys(dev.state.traces).sort()).toEqual([...uuids].sort());
    for (const [i, uuid] of uuids.entries()) {
      const t = dev.state.traces[uuid]!;
      const names = t.spans.map((s) => s.name).sort();
      const expected = ["tool", "turn", ...(i % 10 === 0 ? ["late"] : []), ...(i % 25 === 0 ? ["stuck"] : [])].sort();
      expect(names, uuid).toEqual(expected);
      if (i % 10 === 0) expect(t.fields.tags).toEqual(["late"]);
      if (i % 25 === 0) expect(t.spans.find((s) => s.name === "stuck")!.metadata).toMatchObject({ "evaltrace.unfinished": true });
    }
    const jobs = dev.state.jobs.filter((j) => j.trigger === "offline");
    expect(jobs.map((j) => j.target).sort()).toEqual(["span", "thread", "trace"]);
    // stats() accounts for every trace the app made.
    const s = stats();
    expect(s.tracesDelivered + s.tracesFailed + s.tracesDropped + s.tracesNotRecorded).toBe(uuids.length);
    expect(s).toMatchObject({ tracesDelivered: 200, tracesFailed: 0, updatesFailed: 0, evaluationsFailed: 0, tracesForceEnded: 8, spansForceEnded: 8, openTraces: 0 });
  });
});
