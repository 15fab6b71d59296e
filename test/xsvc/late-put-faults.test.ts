import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FlushResult, flush, observe, shutdown, stats, updateCurrentTrace, withRemoteParent } from "../../src/index.js";
import { type Child, load, runChild } from "../helpers/child.js";
import { type Fault, type FaultProxy, type FaultProxyOptions, type ProxiedRequest, startFaultProxy } from "../helpers/fault-proxy.js";
import { ManualClock, waitUntil } from "../helpers/manual-clock.js";
import { configureForTest } from "../helpers/sdk.js";

/**
 * A callee's late updates (`PUT /v1/traces/:uuid` of its caller's trace) under faults. The callee
 * is this process (its SDK configured through a fault proxy), serving HTTP under
 * `withRemoteParent`; the caller is another process with its own SDK, which sends its trace
 * straight to the emulator (strict, journaled so that it can be killed and started again) only
 * when the test lets it: until then, the service answers the callee's update with 404.
 */

let dev: DevServer | undefined;
let proxy: FaultProxy | undefined;
let callee: Server | undefined;
let caller: Child | undefined;
afterEach(async () => {
  caller?.process.kill();
  await caller?.finished;
  await shutdown(0);
  await new Promise<void>((r) => (callee ? callee.close(() => r()) : r()));
  callee?.closeAllConnections();
  await proxy?.close();
  await dev?.close().catch(() => {});
  caller = undefined;
  callee = undefined;
  proxy = undefined;
  dev = undefined;
});

const dataFile = () => join(mkdtempSync(join(tmpdir(), "evaltrace-late-put-")), "state.jsonl");

/** The emulator, journaled, behind a fault proxy that always reaches the one running now. */
async function startService(fault: (n: number, req: ProxiedRequest) => Fault | undefined, options: FaultProxyOptions = {}) {
  const file = dataFile();
  dev = await startDevServer({ port: 0, dataFile: file });
  const port = Number(new URL(dev.url).port);
  proxy = await startFaultProxy(dev.url, fault, { ...options, upstreamFor: () => dev!.url });
  return {
    kill: () => dev!.close(),
    /** Starts the emulator again from its journal, on the same port (same keys, same data). */
    restart: async () => {
      dev = await startDevServer({ port, dataFile: file });
    },
  };
}

const isPut = (req: ProxiedRequest) => req.method === "PUT" && req.url.startsWith("/v1/traces/");
const traceOf = (req: ProxiedRequest) => decodeURIComponent(req.url.slice("/v1/traces/".length));

/**
 * The callee: an HTTP server whose handler is observed (a lookup under it) and, with `tags`, tags
 * the trace; `/go` answers when `release()` is called (the caller holds its trace open on it).
 */
async function startCallee(options: { tags: boolean }) {
  const lookup = observe({ type: "retriever", name: "callee-lookup", embedder: "e" }, async (q: string) => [`${q}!`]);
  const handle = observe({ type: "agent", name: "callee-handle" }, async (q: string) => {
    const [out] = await lookup(q);
    if (options.tags) updateCurrentTrace({ tags: ["callee"] });
    return out!;
  });
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  callee = createServer((req, res) => {
    if (req.url === "/go") return void released.then(() => res.end("go"));
    void withRemoteParent(req.headers, () => handle(req.url!.slice("/ask/".length))).then((out) => res.end(out));
  });
  await new Promise<void>((r) => callee!.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(callee.address() as AddressInfo).port}`, release };
}

/** The caller's app: its own SDK, straight to the emulator; it holds its trace open on `/go`. */
const callerSource = `${load("esm", "evaltrace", ["configure", "observe", "injectTraceHeaders", "flush", "currentSpanUuid", "currentTraceUuid"])}
configure();
const callee = process.env.CALLEE_URL;
const ids = {};
const ask = observe({ type: "tool", name: "caller-ask" }, async (q) => {
  ids.ask = currentSpanUuid();
  ids.trace = currentTraceUuid();
  const text = await (await fetch(callee + "/ask/" + q, { headers: injectTraceHeaders({ accept: "text/plain" }) })).text();
  console.log("asked " + JSON.stringify(ids));
  await (await fetch(callee + "/go")).text();
  return text;
});
const root = observe({ type: "agent", name: "caller-root" }, async () => ask("hello"));
const answer = await root();
const result = await flush();
console.log("done " + JSON.stringify({ answer, ids, result }));`;

interface CallerRun {
  ids: { ask: string; trace: string };
  /** Lets the caller end its trace and send it; resolves once it has (and exited). */
  finish: () => Promise<void>;
}

/** Starts the caller; resolves once the callee has served it (its update is on its way). */
async function startCaller(calleeUrl: string, release: () => void): Promise<CallerRun> {
  caller = runChild("esm", callerSource, { EVALTRACE_API_KEY: dev!.projectKey, EVALTRACE_BASE_URL: dev!.url, CALLEE_URL: calleeUrl });
  const child = caller;
  let out = "";
  child.process.stdout!.on("data", (chunk: string) => {
    out += chunk;
  });
  await child.waitFor("asked ");
  const ids = JSON.parse(/asked (.*)/.exec(out)![1]!) as CallerRun["ids"];
  return {
    ids,
    finish: async () => {
      release();
      const done = await child.finished;
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      const out = JSON.parse(/done (.*)/.exec(done.stdout)![1]!) as { answer: string; result: FlushResult };
      expect(out.answer).toBe("hello!");
      expect(out.result.ok).toBe(true);
    },
  };
}

/** The caller's trace holds both processes' spans, each once, the callee's under the caller's span. */
function expectOneTrace(ids: CallerRun["ids"], options: { tags: boolean }): void {
  const trace = dev!.state.traces[ids.trace]!;
  expect(trace, "the caller's trace").toBeDefined();
  expect(Object.values(dev!.state.traces).filter((t) => t.spans.some((s) => String(s.name).startsWith("callee-")))).toHaveLength(1);
  const names = trace.spans.map((s) => String(s.name)).sort();
  expect(names).toEqual(["callee-handle", "callee-lookup", "caller-ask", "caller-root"]);
  expect(trace.spans.find((s) => s.name === "callee-handle")!.parentUuid).toBe(ids.ask);
  expect(trace.fields.tags).toEqual(options.tags ? ["callee"] : undefined);
}

/** Configures this process (the callee) through the proxy: fast transport retries, batches wait for flush(). */
function configureCallee(options: { clock?: ManualClock } = {}) {
  return configureForTest(proxy!.url, dev!.projectKey, {
    initialRetryDelayMillis: 20,
    maxRetryDelayMillis: 100,
    maxRetries: 30,
    flushTimeoutMillis: 600_000,
    maxTraceDurationMillis: 2_000_000_000,
    batch: { flushIntervalMillis: 3_600_000 },
    ...options,
  });
}

// On Bun, fetch itself re-sends a request whose reused connection was reset, before our transport
// sees a failure (see lost-answers.test.ts): such a re-send is not one of our retries, and against
// a service that ignores Idempotency-Key its 409 answers what looks like a first attempt.
const onBun = "Bun" in globalThis;

describe("a callee's late update, losing the first answer once its trace is there", () => {
  for (const variant of ["honours", "ignores"] as const) {
    // Without the header, a tags-only update sent again is applied again (nothing a client can
    // do about that but send it): the callee tags its trace only where the service honours it.
    const tags = variant === "honours";
    it.skipIf(onBun && variant === "ignores")(`with a service that ${variant} Idempotency-Key: after 404s, stored once; spans${tags ? " and tags" : ""} not doubled`, async () => {
      /** PUTs (by Idempotency-Key) whose answer was lost after the trace was there and it was stored. */
      const lost = new Set<string>();
      await startService(
        (_n, req) => {
          if (!isPut(req) || dev!.state.traces[traceOf(req)] === undefined) return undefined;
          const id = String(req.headers["idempotency-key"]);
          if (lost.has(id)) return undefined;
          lost.add(id);
          return "store-then-reset";
        },
        variant === "ignores" ? { dropHeaders: ["idempotency-key"] } : {},
      );
      const logger = configureCallee();
      const { url, release } = await startCallee({ tags });
      const run = await startCaller(url, release);
      // The callee's update reached the service before the caller's trace: refused, waiting to retry.
      await expect.poll(() => stats().retries).toBeGreaterThanOrEqual(1);
      expect(dev!.state.traces[run.ids.trace]).toBeUndefined();
      await run.finish();
      expect(await flush()).toMatchObject({ ok: true, notDelivered: [], pending: [] });
      // Each update (tags, then the spans) lost its first answer once the trace was there.
      expect(lost.size).toBe(tags ? 2 : 1);
      expectOneTrace(run.ids, { tags });
      expect(stats()).toMatchObject({ tracesDelivered: 0, updatesDelivered: tags ? 2 : 1, updatesFailed: 0, updatesOrphaned: 0, openTraces: 0 });
      expect(logger.lines.filter((l) => l.startsWith("error:") || l.startsWith("warn:"))).toEqual([]);
    });
  }
});

describe("a callee's late update, the service killed while it waits for the trace", () => {
  it("killed after a 404, refused twice while down, started again from its journal: delivered once", async () => {
    let down = false;
    let arrivedDown = 0;
    let restarted: Promise<void> | undefined;
    const service = await startService((_n, req) => {
      if (!down || !isPut(req)) return undefined;
      // The second attempt that met the dead service brings it back.
      if (++arrivedDown === 2) {
        restarted = service.restart().then(() => {
          down = false;
        });
      }
      return undefined;
    });
    configureCallee();
    const { url, release } = await startCallee({ tags: false });
    const run = await startCaller(url, release);
    await expect.poll(() => stats().retries).toBeGreaterThanOrEqual(1);
    await service.kill();
    down = true;
    await waitUntil(() => restarted !== undefined, "two attempts against the dead service");
    await restarted;
    await run.finish();
    expect(await flush()).toMatchObject({ ok: true, notDelivered: [], pending: [] });
    expect(arrivedDown).toBeGreaterThanOrEqual(2);
    expectOneTrace(run.ids, { tags: false });
    expect(stats()).toMatchObject({ tracesDelivered: 0, updatesDelivered: 1, updatesFailed: 0, updatesOrphaned: 0 });
    // On Bun the two arrivals while down can be one attempt of ours and fetch's own re-send of it
    // (the restart may even answer that re-send): only the 404's retry is ours for certain there.
    expect(stats().retries).toBeGreaterThanOrEqual(onBun ? 1 : 3);
  });
});

/** Timers up to this long are retry waits; longer ones (the flush deadline) are left alone. */
const RETRY_HORIZON_MILLIS = 10_000;
const nextWait = (clock: ManualClock) => clock.pendingDelays().find((d) => d <= RETRY_HORIZON_MILLIS);

/**
 * Moves the clock from one retry wait to the next, letting the real I/O each one starts finish
 * before looking for the next, until `done()`.
 */
async function driveUntil(clock: ManualClock, done: () => boolean): Promise<void> {
  for (;;) {
    await waitUntil(() => done() || nextWait(clock) !== undefined, "a retry waiting on the clock");
    if (done()) return;
    await clock.advance(nextWait(clock)!);
  }
}

/** True once the wait pending ends at or past the minute after `firstAt`: the next attempt is the last. */
const lastWaitOfTheMinute = (clock: ManualClock, firstAt: () => number | undefined) => () => {
  const wait = nextWait(clock);
  const first = firstAt();
  return wait !== undefined && first !== undefined && clock.now() + wait >= first + 60_000;
};

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

describe("a callee's late update and the minute it waits for its trace, on a manual clock", () => {
  it("a trace that never comes: waited for through a 503 and a lost 404, given up once at the minute, counted; flush tells", async () => {
    const clock = new ManualClock();
    let puts = 0;
    let firstPutAt: number | undefined;
    await startService((_n, req) => {
      if (!isPut(req)) return undefined;
      firstPutAt ??= clock.now();
      const n = puts++;
      // A 503 (the transport retries), then a 404 whose answer is lost (its retry, with the same
      // Idempotency-Key, is answered with the remembered 404).
      return n === 1 ? "503" : n === 3 ? "store-then-reset" : undefined;
    });
    const logger = configureCallee({ clock });
    // A caller that never sends its trace: only its headers arrive.
    const traceId = hex(16);
    const spanId = hex(8);
    const handler = observe({ name: "orphan-handler" }, async () => "served");
    expect(await withRemoteParent({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: `evaltrace=${spanId}` }, () => handler())).toBe("served");
    const uuid = `${traceId.slice(0, 8)}-${traceId.slice(8, 12)}-${traceId.slice(12, 16)}-${traceId.slice(16, 20)}-${traceId.slice(20)}`;
    let result: FlushResult | undefined;
    void flush().then((r) => {
      result = r;
    });
    await driveUntil(clock, lastWaitOfTheMinute(clock, () => firstPutAt));
    // The last wait of the minute: nothing given up yet, flush still waiting for it.
    expect(stats()).toMatchObject({ updatesOrphaned: 0, updatesFailed: 0 });
    expect(result).toBeUndefined();
    await driveUntil(clock, () => result !== undefined);
    expect(result).toMatchObject({ ok: false, delivered: 0, notDelivered: [uuid], pending: [], timedOut: false });
    expect(clock.now() - firstPutAt!).toBeGreaterThanOrEqual(60_000);
    expect(proxy!.counts.faults).toEqual({ "503": 1, "store-then-reset": 1 });
    expect(stats()).toMatchObject({ tracesDelivered: 0, updatesDelivered: 0, updatesFailed: 1, updatesOrphaned: 1, openTraces: 0 });
    // Every attempt but the 503's and the lost answer's retries was a 404 waited out.
    if (onBun) expect(stats().retries).toBeGreaterThanOrEqual(puts - 2);
    else expect(stats().retries).toBe(puts - 1);
    expect(dev!.state.traces[uuid]).toBeUndefined();
    expect(logger.lines.filter((l) => l.includes("stats().updatesOrphaned"))).toHaveLength(1);
  });

  it("a trace that comes before the minute's last attempt: delivered once though that attempt's answer is lost, nothing orphaned", async () => {
    const clock = new ManualClock();
    let puts = 0;
    let firstPutAt: number | undefined;
    let lost = 0;
    await startService((_n, req) => {
      if (!isPut(req)) return undefined;
      firstPutAt ??= clock.now();
      if (puts++ === 1) return "503";
      if (dev!.state.traces[traceOf(req)] === undefined || lost > 0) return undefined;
      lost++;
      return "store-then-reset";
    });
    configureCallee({ clock });
    const { url, release } = await startCallee({ tags: true });
    const run = await startCaller(url, release);
    let result: FlushResult | undefined;
    void flush().then((r) => {
      result = r;
    });
    await driveUntil(clock, lastWaitOfTheMinute(clock, () => firstPutAt));
    expect(stats().updatesOrphaned).toBe(0);
    expect(result).toBeUndefined();
    // The caller ends and sends its trace now, while the callee waits for the minute's last attempt.
    await run.finish();
    await driveUntil(clock, () => result !== undefined);
    expect(result).toMatchObject({ ok: true, notDelivered: [], pending: [] });
    expect(clock.now() - firstPutAt!).toBeGreaterThanOrEqual(60_000);
    expect(lost).toBe(1);
    expectOneTrace(run.ids, { tags: true });
    expect(stats()).toMatchObject({ tracesDelivered: 0, updatesDelivered: 2, updatesFailed: 0, updatesOrphaned: 0, openTraces: 0 });
  });
});
