import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentSpanUuid, currentTraceUuid, evaluateSpan, evaluateThread, evaluateTrace, flush, observe, shutdown, stats, updateCurrentTrace } from "../../src/index.js";
import { ManualClock, settle, waitUntil } from "../helpers/manual-clock.js";
import { allSpans, postedTraces, type Recorder, type Reply, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

let recorder: Recorder | undefined;
let dev: DevServer | undefined;
afterEach(async () => {
  await shutdown(0);
  await recorder?.close();
  await dev?.close();
  recorder = undefined;
  dev = undefined;
});

async function withRecorder(script?: (n: number) => Reply, options = {}) {
  recorder = await startRecorder(script);
  const clock = new ManualClock();
  // The stuck-trace sweep gets a timer far out of the way of the ones these tests count.
  const logger = configureForTest(recorder.url, "svc_local_proj_SECRETKEY123", { clock, maxRetries: 3, initialRetryDelayMillis: 100, maxTraceDurationMillis: 2_000_000_000, ...options });
  const timers = () => clock.pendingDelays().filter((d) => d < 100_000_000);
  return { rec: recorder, clock, logger, timers };
}

describe("exporter", () => {
  it("batches finished traces into one list-form POST per interval", async () => {
    const { rec, clock } = await withRecorder(undefined, { batch: { flushIntervalMillis: 1000 } });
    const f = observe({ name: "t" }, (i: number) => i);
    for (let i = 0; i < 5; i++) f(i);
    await settle();
    expect(rec.requests).toHaveLength(0);
    await clock.advance(999);
    expect(rec.requests).toHaveLength(0);
    await clock.advance(1);
    await waitUntil(() => rec.requests.length === 1, "the batch");
    expect(rec.requests[0]!.headers.service_api_key).toBe("svc_local_proj_SECRETKEY123");
    expect(postedTraces(rec.requests)).toHaveLength(5);
    const [first] = postedTraces(rec.requests);
    for (const key of ["baseSpans", "llmSpans", "retrieverSpans", "agentSpans", "toolSpans"]) expect(first).toHaveProperty(key);
  });

  it("sends a full batch without waiting for the interval, and splits by span count and bytes", async () => {
    const { rec, clock } = await withRecorder(undefined, { batch: { maxSpansPerRequest: 10, maxRequestBytes: 4096 } });
    const child = observe({ name: "c" }, () => "y".repeat(200));
    const f = observe({ name: "t" }, () => {
      child();
      child();
    });
    for (let i = 0; i < 30; i++) f();
    // A batch goes once a request's worth of spans waits (three traces of three spans make 9: the
    // fourth's end sends them); what is left after the last waits for the interval.
    await waitUntil(() => postedTraces(rec.requests).length >= 27, "the full batches without the timer");
    await settle();
    expect(postedTraces(rec.requests).length).toBeLessThan(30);
    await clock.advance(1000);
    await waitUntil(() => postedTraces(rec.requests).length === 30, "the rest at the interval");
    for (const r of rec.requests) {
      expect(r.raw.length).toBeLessThanOrEqual(4096);
      expect((r.body as { traces: unknown[] }).traces.flatMap((t) => allSpans(t as Record<string, unknown>)).length).toBeLessThanOrEqual(10);
    }
  });

  it("takes a batch from the span end that makes a request's worth, while the app has not yielded yet; the traces before it are written ahead", async () => {
    const { rec } = await withRecorder(undefined, { batch: { maxSpansPerRequest: 20, flushIntervalMillis: 3_600_000 } });
    const f = observe({ name: "t" }, (i: number) => i);
    // The slice a batch is taken in (0.25 ms of performance.now()) is held open: what is tested
    // is where the batch is taken, not how much a cold runtime takes in 0.25 ms (Bun on a slow
    // machine took fewer than ten traces in it; running out of a slice is export-slices' test).
    const realNow = performance.now.bind(performance);
    const frozen = realNow();
    performance.now = () => frozen;
    try {
      for (let i = 0; i < 19; i++) f(i);
      // Written into the next batch from the 16th on, still counted as queued: nothing is sent.
      expect(stats()).toMatchObject({ queued: 19, inFlight: 0 });
      // The twentieth span makes a request's most: taken for a request at once, not on a later turn.
      f(19);
      expect(stats()).toMatchObject({ queued: 0, inFlight: 1 });
      for (let i = 20; i < 40; i++) f(i);
      // The second of the two request slots.
      expect(stats()).toMatchObject({ queued: 0, inFlight: 2 });
      for (let i = 40; i < 50; i++) f(i);
      expect(stats()).toMatchObject({ queued: 10, inFlight: 2 });
    } finally {
      performance.now = realNow;
    }
    expect(await flush()).toMatchObject({ ok: true, delivered: 50 });
    expect(postedTraces(rec.requests)).toHaveLength(50);
    expect(rec.requests).toHaveLength(3);
  });

  it("drains a flush that needs many batches with one request at a time", async () => {
    const { rec } = await withRecorder(undefined, { batch: { maxSpansPerRequest: 3, concurrency: 1, flushIntervalMillis: 3_600_000 } });
    const f = observe({ name: "t" }, (i: number) => i);
    for (let i = 0; i < 30; i++) f(i);
    expect(await flush()).toMatchObject({ ok: true, delivered: 30 });
    expect(rec.requests.length).toBeGreaterThanOrEqual(10);
    expect(postedTraces(rec.requests)).toHaveLength(30);
  });

  it("sends a span that ends after its trace was sent as a PUT with only the new span", async () => {
    const { rec } = await withRecorder();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const background = observe({ type: "tool", name: "late" }, async () => {
      await gate;
      return "done";
    });
    let uuid = "";
    let backgroundDone!: Promise<string>;
    const root = observe({ name: "root" }, () => {
      uuid = currentTraceUuid()!;
      backgroundDone = background(); // fire and forget
      return "root";
    });
    root();
    expect((await flush()).ok).toBe(true);
    const posted = postedTraces(rec.requests);
    expect(posted).toHaveLength(1);
    expect(allSpans(posted[0]!).map((s) => s.name)).toEqual(["root"]);
    release();
    await backgroundDone;
    expect((await flush()).ok).toBe(true);
    const put = rec.requests.find((r) => r.method === "PUT")!;
    expect(put.url).toBe(`/v1/traces/${uuid}`);
    const body = put.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["endTime", "toolSpans"]);
    const [late] = body.toolSpans as Record<string, unknown>[];
    expect(late).toMatchObject({ name: "late", output: "done", parentUuid: allSpans(posted[0]!)[0]!.uuid });
  });

  it("sends updateCurrentTrace after the send as a PUT of overwrite/append fields only", async () => {
    const { rec, logger } = await withRecorder();
    let later!: () => void;
    const root = observe({ name: "root" }, () => {
      const ctxUpdate = observe({ name: "after" }, async () => {
        await new Promise<void>((r) => {
          later = r;
        });
        updateCurrentTrace({ output: "final", tags: ["late"], metadata: { k: 1 }, userId: "ignored" });
      });
      return ctxUpdate();
    });
    const done = root();
    await flush();
    // Root returned a promise that waits for `after`, so nothing is sent until it resolves.
    expect(postedTraces(rec.requests)).toHaveLength(0);
    later();
    await done;
    await flush();
    expect(postedTraces(rec.requests)).toHaveLength(1);
    expect(rec.requests.filter((r) => r.method === "PUT")).toHaveLength(0);
    // Now truly after the send: a background span updates the trace.
    let resume!: () => void;
    let traceUuid = "";
    const bg = observe({ name: "bg" }, async () => {
      await new Promise<void>((r) => {
        resume = r;
      });
      updateCurrentTrace({ output: "final", tags: ["late"], metadata: { k: 1 }, userId: "ignored" });
    });
    let bgDone!: Promise<void>;
    const root2 = observe({ name: "root2" }, () => {
      traceUuid = currentTraceUuid()!;
      bgDone = bg();
    });
    root2();
    await flush();
    resume();
    await bgDone;
    await flush();
    const put = rec.requests.find((r) => r.method === "PUT" && r.url === `/v1/traces/${traceUuid}`)!;
    expect(put.body).toMatchObject({ output: "final", tags: ["late"], metadata: { k: 1 } });
    expect(put.body).not.toHaveProperty("userId");
    expect(logger.lines.some((l) => l.includes("ignored userId"))).toBe(true);
  });

  it("retries 5xx with backoff and 429 after exactly Retry-After, then delivers", async () => {
    const replies: Reply[] = [{ status: 503 }, { status: 429, headers: { "retry-after": "7" } }, { status: 200 }];
    const { rec, clock, timers } = await withRecorder((n) => replies[n] ?? { status: 200 }, { initialRetryDelayMillis: 1000 });
    observe({ name: "r" }, () => 1)();
    const flushed = flush();
    // Two timers: the retry and flush()'s own timeout.
    await waitUntil(() => rec.requests.length === 1 && timers().length === 2, "first attempt and its retry timer");
    const backoff = timers()[0]!;
    expect(backoff).toBeGreaterThanOrEqual(500); // equal jitter: half fixed
    expect(backoff).toBeLessThanOrEqual(1000);
    await clock.advance(backoff - 1);
    expect(rec.requests).toHaveLength(1);
    await clock.advance(1);
    await waitUntil(() => rec.requests.length === 2 && timers()[0] === 7000, "second attempt, Retry-After timer");
    await clock.advance(6999);
    expect(rec.requests).toHaveLength(2);
    await clock.advance(1);
    const result = await flushed;
    expect(result).toMatchObject({ ok: true, delivered: 1 });
    expect(rec.requests).toHaveLength(3);
    expect(stats()).toMatchObject({ retries: 2, tracesDelivered: 1 });
  });

  it("does not retry other 4xx, isolates the bad trace of a batch, and reports what was not delivered", async () => {
    let bad = "";
    const { rec, logger } = await withRecorder((_n) => ({ status: 200 }));
    // Stand in for a service that rejects one trace: answer 400 to any request that contains it.
    await rec.close();
    recorder = await startRecorder((_n, r) => (r.raw.includes(bad) ? { status: 400, body: { success: false, error: "body.traces[0].name must be a string" } } : { status: 200 }));
    configureForTest(recorder.url, "svc_local_proj_SECRETKEY123", { logger, maxRetries: 3 });
    const f = observe({ name: "t" }, (i: number) => {
      if (i === 3) bad = currentTraceUuid()!;
      return i;
    });
    for (let i = 0; i < 8; i++) f(i);
    const result = await flush();
    expect(result.ok).toBe(false);
    expect(result.notDelivered).toEqual([bad]);
    expect(result.delivered).toBe(7);
    const delivered = recorder.requests.filter((r) => !r.raw.includes(bad)).flatMap((r) => (r.body as { traces: { uuid: string }[] }).traces.map((t) => t.uuid));
    expect(new Set(delivered).size).toBe(7);
    // Only splits, no retries of the same 400.
    expect(stats()!.retries).toBe(0);
    expect(logger.lines.some((l) => l.includes("must be a string"))).toBe(true);
  });

  it("bounds the queue: overflow drops whole traces, counts and reports them", async () => {
    const { logger } = await withRecorder(() => "stall", { batch: { maxQueuedTraces: 5, concurrency: 1, flushIntervalMillis: 60_000 } });
    const f = observe({ name: "q" }, (i: number) => i);
    for (let i = 0; i < 12; i++) f(i);
    expect(stats()).toMatchObject({ tracesDropped: 7, queued: 5 });
    expect(logger.lines.some((l) => l.includes("trace(s) dropped") && l.includes("maxQueuedTraces=5"))).toBe(true);
  });

  it("flush() resolves at its timeout and lists what is still pending", async () => {
    const { clock, rec } = await withRecorder(() => "stall");
    observe({ name: "stuck" }, () => 1)();
    const flushed = flush(5000);
    await waitUntil(() => rec.requests.length === 1, "the stalled request");
    await clock.advance(5000);
    const result = await flushed;
    expect(result).toMatchObject({ ok: false, timedOut: true, delivered: 0 });
    expect(result.pending).toHaveLength(1);
  });

  it("gives up after maxRetries network failures and says so", async () => {
    const { clock, timers } = await withRecorder(() => "reset", { maxRetries: 2, initialRetryDelayMillis: 10 });
    observe({ name: "down" }, () => 1)();
    const flushed = flush(60_000);
    for (let i = 0; i < 2; i++) {
      await waitUntil(() => timers().length === 2, "a retry timer");
      // Exponential with equal jitter: retry i waits between 5·2^i and 10·2^i ms.
      const delay = timers()[0]!;
      expect(delay).toBeGreaterThanOrEqual(5 * 2 ** i);
      expect(delay).toBeLessThanOrEqual(10 * 2 ** i);
      await clock.advance(delay);
    }
    const result = await flushed;
    expect(result.ok).toBe(false);
    expect(result.notDelivered).toHaveLength(1);
    expect(stats()).toMatchObject({ tracesFailed: 1, retries: 2 });
  });

  it("logs the key-rotation warning headers once and never logs the API key", async () => {
    const { logger } = await withRecorder(() => ({ status: 200, headers: { sunset: "Fri, 01 Jan 2027 00:00:00 GMT", "x-api-key-warning": "rotating" } }));
    for (let i = 0; i < 3; i++) {
      observe({ name: "w" }, () => 1)();
      await flush();
    }
    expect(logger.lines.filter((l) => l.includes("stops working at Fri, 01 Jan 2027"))).toHaveLength(1);
    expect(logger.lines.join("\n")).not.toContain("SECRETKEY123");
  });
});

describe("offline evaluations against the emulator", () => {
  it("never sends a thread, trace or span evaluation before what it refers to", async () => {
    const order: string[] = [];
    dev = await startDevServer({ port: 0, log: (line) => order.push(line.split(" ").slice(0, 2).join(" ")) });
    const api = (path: string, body: unknown) =>
      fetch(dev!.url + path, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: dev!.projectKey }, body: JSON.stringify(body) });
    await api("/v1/metric-collections", { name: "conversation", multiTurn: true, metricSettings: [{ metric: { name: "Turn Relevancy" } }] });
    await api("/v1/metric-collections", { name: "answers", multiTurn: false });
    configureForTest(dev.url, dev.projectKey, { batch: { flushIntervalMillis: 60_000 } });
    let spanUuid = "";
    const turn = observe({ type: "agent", name: "turn" }, async (q: string) => {
      updateCurrentTrace({ threadId: "conv-9" });
      const llm = observe({ type: "llm", model: "m" }, async (x: string) => {
        spanUuid = currentSpanUuid()!;
        return `re: ${x}`;
      });
      return { out: await llm(q), trace: currentTraceUuid()! };
    });
    await turn("hello");
    const second = await turn("bye");
    // Nothing has been sent yet (the batch interval is a minute away).
    expect(order.filter((l) => l.startsWith("POST /v1/traces"))).toHaveLength(0);
    const outcomes = await Promise.all([
      evaluateThread("conv-9", { metricCollection: "conversation", chatbotRole: "a support bot" }),
      evaluateTrace(second.trace, { metricCollection: "answers" }),
      evaluateSpan(spanUuid, { metricCollection: "answers" }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["delivered", "delivered", "delivered"]);
    const firstTraces = order.indexOf("POST /v1/traces");
    expect(firstTraces).toBeGreaterThanOrEqual(0);
    for (const path of ["/v1/evaluate/threads/conv-9", `/v1/evaluate/traces/${second.trace}`, `/v1/evaluate/spans/${spanUuid}`]) {
      expect(order.indexOf(`POST ${path}`)).toBeGreaterThan(firstTraces);
    }
    const jobs = dev.state.jobs.filter((j) => j.trigger === "offline");
    expect(jobs.map((j) => j.target).sort()).toEqual(["span", "thread", "trace"]);
    expect(jobs.find((j) => j.target === "thread")).toMatchObject({ chatbotRole: "a support bot", status: "NOT_JUDGED" });
  });

  it("defers an evaluation called inside the trace it waits for, and flush() waits for it", async () => {
    dev = await startDevServer({ port: 0 });
    await fetch(`${dev.url}/v1/metric-collections`, {
      method: "POST",
      headers: { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey },
      body: JSON.stringify({ name: "answers", multiTurn: false }),
    });
    configureForTest(dev.url, dev.projectKey);
    const f = observe({ name: "self-eval" }, async () => evaluateTrace(currentTraceUuid()!, { metricCollection: "answers" }));
    expect(await f()).toEqual({ status: "deferred" });
    expect((await flush()).ok).toBe(true);
    expect(dev.state.jobs.filter((j) => j.trigger === "offline" && j.target === "trace")).toHaveLength(1);
  });
});
