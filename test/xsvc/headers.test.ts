import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import {
  currentSpanUuid,
  currentTraceUuid,
  deliver,
  extractTraceContext,
  flush,
  injectTraceHeaders,
  observe,
  shutdown,
  stats,
  updateCurrentTrace,
  withRemoteParent,
} from "../../src/index.js";
import { InstantClock } from "../helpers/manual-clock.js";
import { startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());
afterEach(async () => {
  await shutdown();
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const asUuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
const stored = (uuid: string) => dev.state.traces[uuid];

/** What an evaltrace caller sends: a sampled traceparent and the tracestate entry naming its span. */
function callerHeaders(traceId = hex(16), spanId = hex(8)) {
  return { traceparent: `00-${traceId}-${spanId}-01`, tracestate: `evaltrace=${spanId},other=v` };
}

function throwingHeaders(): Record<string, string> {
  return new Proxy({} as Record<string, string>, {
    get() {
      throw new Error("hostile get");
    },
    ownKeys() {
      throw new Error("hostile keys");
    },
  });
}

describe("hostile headers start a fresh trace, never throw", () => {
  const traceId = hex(16);
  const spanId = hex(8);
  const cases: [string, unknown][] = [
    ["no headers", undefined],
    ["null", null],
    ["a number", 42],
    ["malformed traceparent", { traceparent: "garbage", tracestate: `evaltrace=${spanId}` }],
    ["all-zero trace id", { traceparent: `00-${"0".repeat(32)}-${spanId}-01`, tracestate: `evaltrace=${spanId}` }],
    ["all-zero span id", { traceparent: `00-${traceId}-${"0".repeat(16)}-01`, tracestate: `evaltrace=${spanId}` }],
    ["version ff", { traceparent: `ff-${traceId}-${spanId}-01`, tracestate: `evaltrace=${spanId}` }],
    ["huge traceparent", { traceparent: `00-${traceId}-${spanId}-01${"-x".repeat(500_000)}`, tracestate: `evaltrace=${spanId}` }],
    ["huge tracestate", { traceparent: `00-${traceId}-${spanId}-01`, tracestate: `evaltrace=${spanId},${"k=v,".repeat(300_000)}` }],
    ["two traceparent headers", { traceparent: [`00-${traceId}-${spanId}-01`, `00-${hex(16)}-${spanId}-01`], tracestate: `evaltrace=${spanId}` }],
    ["not from evaltrace (a gateway)", { traceparent: `00-${traceId}-${spanId}-01` }],
    ["bad anchor", { traceparent: `00-${traceId}-${spanId}-01`, tracestate: "evaltrace=zzzz" }],
    ["all-zero anchor", { traceparent: `00-${traceId}-${spanId}-01`, tracestate: `evaltrace=${"0".repeat(16)}` }],
    ["non-string values", { traceparent: { toString: () => `00-${traceId}-${spanId}-01` }, tracestate: 7 }],
    ["throwing headers", throwingHeaders()],
  ];

  it.each(cases)("%s", async (_name, headers) => {
    configureForTest(dev.url, dev.projectKey);
    const handler = observe({ name: "handler" }, async (x: number) => ({ got: x, trace: currentTraceUuid() }));
    const out = await withRemoteParent(headers as Record<string, string>, () => handler(1));
    expect(out.got).toBe(1);
    expect(out.trace).toBeDefined();
    expect(out.trace).not.toBe(asUuid(traceId));
    expect((await flush()).ok).toBe(true);
    const trace = stored(out.trace!);
    expect(trace?.spans).toHaveLength(1);
    expect(trace?.spans[0]?.parentUuid).toBeUndefined();
    expect(stats()).toMatchObject({ tracesDelivered: 1, updatesDelivered: 0, updatesOrphaned: 0 });
  });

  it("extractTraceContext returns the base context for any of them", () => {
    for (const [, headers] of cases) {
      if (headers === undefined || headers === null || typeof headers !== "object") continue;
      const parent = extractTraceContext(headers as Record<string, string>);
      expect(parent).toBeDefined();
    }
  });
});

describe("injectTraceHeaders", () => {
  it("outside an observed span leaves the headers as they were", () => {
    configureForTest(dev.url, dev.projectKey);
    expect(injectTraceHeaders()).toEqual({});
    const h = { accept: "text/plain" };
    expect(injectTraceHeaders(h)).toBe(h);
    expect(h).toEqual({ accept: "text/plain" });
  });

  it("fills a plain object, a fetch Headers, replaces a differently cased key, and survives a frozen one", async () => {
    configureForTest(dev.url, dev.projectKey);
    const seen = await observe({ name: "outer" }, async () => {
      const plain = injectTraceHeaders({ Traceparent: "stale", accept: "x" } as Record<string, string>);
      const fetchHeaders = injectTraceHeaders(new Headers({ accept: "x" }));
      const frozen = Object.freeze({ accept: "x" });
      expect(() => injectTraceHeaders(frozen)).not.toThrow();
      return { plain, fetchHeaders, span: currentSpanUuid()!, trace: currentTraceUuid()! };
    })();
    const traceId = seen.trace.replaceAll("-", "");
    const spanId = seen.span.replaceAll("-", "").slice(16);
    expect(seen.plain).toEqual({ accept: "x", traceparent: `00-${traceId}-${spanId}-01`, tracestate: `evaltrace=${spanId}` });
    expect(seen.fetchHeaders.get("traceparent")).toBe(`00-${traceId}-${spanId}-01`);
    expect(seen.fetchHeaders.get("tracestate")).toBe(`evaltrace=${spanId}`);
  });

  it("in one process, a handler run under the headers hangs under the span that sent them (one trace, one POST)", async () => {
    configureForTest(dev.url, dev.projectKey);
    const handler = observe({ name: "handler" }, async () => currentTraceUuid());
    const caller = observe({ name: "caller" }, async () => {
      const headers = injectTraceHeaders();
      // Served inside the caller's own span: the request's parent still wins.
      const inner = observe({ name: "unrelated" }, () => withRemoteParent(headers, () => handler()));
      return { handled: await inner(), trace: currentTraceUuid()!, span: currentSpanUuid()! };
    });
    const out = await caller();
    expect(out.handled).toBe(out.trace);
    expect((await flush()).ok).toBe(true);
    const spans = stored(out.trace)!.spans;
    expect(spans.map((s) => s.name).sort()).toEqual(["caller", "handler", "unrelated"]);
    expect(spans.find((s) => s.name === "handler")!.parentUuid).toBe(out.span);
    expect(stats()).toMatchObject({ tracesDelivered: 1, updatesOrphaned: 0 });
  });
  it("passes the trace on from a handler: its own span as anchor, other vendors' entries kept within 512 characters", async () => {
    configureForTest(dev.url, dev.projectKey);
    const traceId = hex(16);
    const caller = hex(8);
    const incoming = { traceparent: `00-${traceId}-${caller}-01`, tracestate: `evaltrace=${caller},short=1,${"long=".concat("x".repeat(240))},${"more=".concat("y".repeat(240))}` };
    const handler = observe({ name: "hop" }, async () => ({ out: injectTraceHeaders(), span: currentSpanUuid()! }));
    const { out, span } = await withRemoteParent(incoming, () => handler());
    const spanId = span.replaceAll("-", "").slice(16);
    expect(out.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(out.tracestate!.startsWith(`evaltrace=${spanId},short=1,long=`)).toBe(true);
    expect(out.tracestate!.match(/evaltrace=/g)).toHaveLength(1);
    expect(out.tracestate!.length).toBeLessThanOrEqual(512);
    await shutdown(0);
  });
});

describe("a late update whose trace never arrives", () => {
  it("is retried for a minute, then dropped and counted; flush lists the trace as not delivered", async () => {
    // Retry waits fire at once while the clock moves by them; the flush deadline never fires.
    const clock = new InstantClock(60_000);
    const logger = configureForTest(dev.url, dev.projectKey, { clock, flushTimeoutMillis: 600_000 });
    const traceId = hex(16);
    const handler = observe({ name: "orphan-handler" }, async () => currentTraceUuid());
    const joined = await withRemoteParent(callerHeaders(traceId), () => handler());
    expect(joined).toBe(asUuid(traceId));
    const result = await flush();
    expect(result).toMatchObject({ ok: false, notDelivered: [asUuid(traceId)], pending: [], timedOut: false });
    const s = stats();
    expect(s).toMatchObject({ tracesDelivered: 0, updatesDelivered: 0, updatesFailed: 1, updatesOrphaned: 1 });
    expect(s.retries).toBeGreaterThan(3);
    // Backoff, bounded: no wait longer than the cap, and the waits add up to the window.
    const waits = logger.lines.flatMap((l) => /does not know the trace yet; retrying in (\d+) ms/.exec(l)?.[1] ?? []).map(Number);
    expect(waits.length).toBe(s.retries);
    expect(Math.max(...waits)).toBeLessThanOrEqual(5_000);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60_000);
    expect(stored(asUuid(traceId))).toBeUndefined();
    expect(logger.lines.some((l) => l.includes("stats().updatesOrphaned"))).toBe(true);
  });

  it("deliver() within its budget reports it as pending, not delivered", async () => {
    configureForTest(dev.url, dev.projectKey);
    const traceId = hex(16);
    const handler = observe({ name: "orphan-at-deliver" }, async () => 1);
    await withRemoteParent(callerHeaders(traceId), () => handler());
    const result = await deliver(undefined, 300);
    expect(result).toMatchObject({ ok: false, pending: [asUuid(traceId)], timedOut: true });
    expect(stats()).toMatchObject({ updatesDelivered: 0, updatesOrphaned: 0 });
  });

  it("a shutdown(200) while it waits gives it up within that timeout: listed as not delivered, counted as orphaned", async () => {
    configureForTest(dev.url, dev.projectKey);
    const traceId = hex(16);
    const handler = observe({ name: "orphan-at-shutdown" }, async () => 1);
    await withRemoteParent(callerHeaders(traceId), () => handler());
    await expect.poll(() => stats().retries).toBeGreaterThanOrEqual(1);
    const result = await shutdown(200);
    expect(result.ok).toBe(false);
    expect(result.pending.concat(result.notDelivered)).toContain(asUuid(traceId));
    await expect.poll(() => stats().updatesOrphaned).toBe(1);
    expect(stats()).toMatchObject({ updatesDelivered: 0, updatesFailed: 1 });
  });

  it("a service that refuses PUT altogether: counted, and flush lists the trace as not delivered", async () => {
    const recorder = await startRecorder((_n, req) => (req.method === "PUT" ? { status: 405, body: { success: false, error: "no" } } : { status: 200 }));
    try {
      configureForTest(recorder.url, dev.projectKey);
      const traceId = hex(16);
      const handler = observe({ name: "no-put" }, async () => 1);
      await withRemoteParent(callerHeaders(traceId), () => handler());
      expect(await flush()).toMatchObject({ ok: false, notDelivered: [asUuid(traceId)] });
      expect(stats()).toMatchObject({ spansNotUpdatable: 1, updatesOrphaned: 0, tracesDelivered: 0 });
      expect(recorder.requests.map((r) => r.method)).toEqual(["PUT"]);
    } finally {
      await shutdown();
      await recorder.close();
    }
  });

  it("a late update of a trace this process sent is not waited for on 404 (the route is missing, not the trace)", async () => {
    const recorder = await startRecorder((_n, req) => (req.method === "PUT" ? { status: 404, body: { success: false, error: "not found" } } : { status: 200 }));
    try {
      configureForTest(recorder.url, dev.projectKey);
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const late = observe({ name: "late-child" }, async () => gate);
      let pending: Promise<void> | undefined;
      await observe({ name: "local-root" }, async () => {
        pending = late();
      })();
      expect((await flush()).ok).toBe(true);
      release();
      await pending;
      await flush();
      expect(stats()).toMatchObject({ tracesDelivered: 1, updatesFailed: 1, updatesOrphaned: 0, retries: 0 });
      expect(recorder.requests.map((r) => r.method)).toEqual(["POST", "PUT"]);
    } finally {
      await shutdown();
      await recorder.close();
    }
  });

  it("deliver() in a callee leaves another request still being served running (not sent unfinished)", async () => {
    const recorder = await startRecorder();
    try {
      configureForTest(recorder.url, dev.projectKey);
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const slow = observe({ name: "slow-request" }, async () => gate);
      const quick = observe({ name: "quick-request" }, async () => 1);
      const running = withRemoteParent(callerHeaders(), () => slow());
      await withRemoteParent(callerHeaders(), () => quick());
      // The quick request's handler delivers before returning: the slow one is another request.
      const result = await deliver(undefined, 200);
      expect(result.ok).toBe(true);
      expect(stats()).toMatchObject({ tracesForceEnded: 0, spansForceEnded: 0, updatesDelivered: 1 });
      release();
      await running;
      expect((await flush()).ok).toBe(true);
      expect(stats()).toMatchObject({ tracesForceEnded: 0, updatesDelivered: 2, updatesFailed: 0 });
      const names = recorder.requests.flatMap((r) => ((r.body as { baseSpans?: { name: string; metadata?: object }[] }).baseSpans ?? []).map((b) => [b.name, b.metadata ?? {}]));
      expect(names).toEqual([
        ["quick-request", {}],
        ["slow-request", {}],
      ]);
    } finally {
      await shutdown();
      await recorder.close();
    }
  });
});

describe("a callee routes its part of the caller's trace to a per-trace key", () => {
  const TENANT = "svc_local_tenant_key_0001";
  const putKeys = async (handler: () => Promise<unknown>, traceId: string) => {
    const recorder = await startRecorder();
    try {
      const logger = configureForTest(recorder.url, dev.projectKey);
      await withRemoteParent(callerHeaders(traceId), handler);
      expect(await flush()).toMatchObject({ ok: true });
      const puts = recorder.requests.filter((r) => r.method === "PUT");
      expect(puts.length).toBeGreaterThan(0);
      for (const put of puts) expect(put.url).toBe(`/v1/traces/${asUuid(traceId)}`);
      return { keys: puts.map((r) => r.headers.service_api_key), logger };
    } finally {
      await shutdown();
      await recorder.close();
    }
  };

  it("observe({ apiKey }) on the handler (its parent is the remote caller's span)", async () => {
    const { keys, logger } = await putKeys(() => observe({ name: "handler", apiKey: TENANT }, async () => 1)(), hex(16));
    expect(keys).toEqual([TENANT]);
    expect(logger.lines.join("\n")).not.toContain("nested span");
  });

  it("updateCurrentTrace({ apiKey }) in the handler before any of its spans went out", async () => {
    const child = observe({ name: "child" }, async () => 2);
    const handler = observe({ name: "handler" }, async () => {
      updateCurrentTrace({ apiKey: TENANT });
      return child();
    });
    const { keys } = await putKeys(() => handler(), hex(16));
    expect(new Set(keys)).toEqual(new Set([TENANT]));
  });

  it("a key set after an update of the caller's trace went out is ignored, with a warning", async () => {
    // Two requests of one caller's trace served at once: the first one's update goes out, then
    // the second one asks for another key.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const second = observe({ name: "second" }, async () => {
      await gate;
      updateCurrentTrace({ apiKey: TENANT });
      return 2;
    });
    const first = observe({ name: "first" }, async () => 1);
    const { keys, logger } = await putKeys(async () => {
      const later = second();
      await first();
      await flush();
      release();
      return later;
    }, hex(16));
    expect(keys.length).toBe(2);
    expect(keys.every((k) => k === dev.projectKey)).toBe(true);
    expect(logger.lines.some((l) => l.includes("apiKey set after the trace was sent"))).toBe(true);
  });
});
