import { describe, expect, it, onTestFinished } from "vitest";
import { formats, load, runChild } from "../helpers/child.js";
import { faultyEmulator } from "../helpers/faulty-emulator.js";

// Export work runs in slices of a fraction of a millisecond, one per turn of the event loop: a
// batch is taken over as many turns as it takes, each trace written as JSON bytes as it is
// taken, and still goes as one request. The app in a child process (the built package, ESM and
// CommonJS) makes every trace outlast a slice (its `performance.now()` moves a millisecond per
// call), counts the turns the batch takes, and, on each of those turns, ends a span of a trace
// sent earlier: each late update is written (PUT) while the batch is half written, and both
// must arrive intact. A trace whose root ended with a span still open (`blocker`) is queued
// first: traces are written into the next batch ahead of time only up to such a trace
// (takeEarly), so that the bulk is taken when the batch is due, a slice per turn.
const service = faultyEmulator();

/** A trace that stays at the head of the queue (its child waits for `unblock()`), before the bulk. */
const blocker = (format: string) => `const blocked = []; const unblock = () => blocked.shift()?.();
       await observe({ name: "blocker-${format}" }, async () => { void observe({ name: "blocked-child" }, () => new Promise((r) => blocked.push(r)))(); })();`;

/** Traces sent with a span left open, each ended later. */
const HELD = 40;
/** One-span traces of the batch taken in slices (the exporter reads its clock every few spans: 4). */
const BULK = 320;

describe.each(formats)("export in slices (%s)", (format) => {
  it("takes a batch over many turns when each trace outlasts a slice, sends it as one request, and keeps late updates written between the slices intact", async () => {
    const requests: string[] = [];
    const proxy = await service.proxy((_n, req) => {
      requests.push(`${req.method} ${req.url.split("/").slice(0, 3).join("/")}`);
      return undefined;
    });
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "flush", "observe", "stats"])}
       configure({ logLevel: "silent", batch: { flushIntervalMillis: 60000 } });
       // ${HELD} traces sent with a span still open, each ended later, on a turn of its own.
       const gates = [];
       const late = observe({ name: "late" }, async (i) => { await new Promise((r) => gates.push(r)); return "late " + i; });
       const held = observe({ name: "held-${format}" }, async (i) => { void late(i); return i; });
       for (let i = 0; i < ${HELD}; i++) await held(i);
       const first = await flush(0);
       while (stats().tracesDelivered < ${HELD}) await new Promise((r) => setTimeout(r, 5));
       console.log("held sent");
       // From here on, every trace outlasts a slice.
       const realNow = performance.now.bind(performance);
       let skew = 0;
       performance.now = () => realNow() + (skew += 1);
       ${blocker(format)}
       const bulk = observe({ name: "bulk-${format}" }, (q) => "answer to " + q);
       for (let i = 0; i < ${BULK}; i++) bulk("question " + i);
       const turns = [];
       let done = false;
       setImmediate(function turn() {
         const s = stats();
         turns.push([s.queued, s.tracesDelivered, gates.length, s.inFlight, s.bytesSent]);
         // While the batch is taken (its traces count as queued until it goes).
         if (s.queued === ${BULK} + 1) gates.shift()?.();
         if (!done) setImmediate(turn);
       });
       const result = await flush();
       done = true;
       while (gates.length > 0) gates.shift()();
       unblock();
       const last = await flush();
       console.log(JSON.stringify({ first: first.timedOut, ok: result.ok && last.ok, turns, stats: stats() }));`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: proxy.url },
    );
    // A child that hangs is killed with the test, not left running.
    onTestFinished(() => {
      child.process.kill("SIGKILL");
    });
    await child.waitFor("held sent");
    const postsBefore = requests.filter((r) => r === "POST /v1/traces").length;
    const done = await child.finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const out = JSON.parse(done.stdout.trim().split("\n").pop()!) as { ok: boolean; turns: [number, number, number, number, number][]; stats: { updatesDelivered: number; updatesFailed: number; tracesFailed: number; tracesDropped: number } };
    expect(out.ok).toBe(true);

    // Per turn of the app: [queued, delivered, late spans still open, requests in flight, bytes sent].
    const turns = out.turns;
    // Taking: a trace per turn (at least), until the batch's body went (turn `posted`: bytes
    // sent grew by far more than a late update's), with late updates written on those turns.
    const posted = turns.findIndex(([, , , , bytes], i) => i > 0 && bytes - turns[i - 1]![4] > 5000);
    expect(posted).toBeGreaterThanOrEqual(BULK / 8 - 1);
    const updatesMeanwhile = turns.slice(0, posted).filter(([, , open], i) => open > turns[i + 1]![2]).length;
    expect(updatesMeanwhile).toBeGreaterThanOrEqual(HELD / 4);

    // One request for the whole batch; every trace and every late span stored once, intact.
    expect(requests.filter((r) => r === "POST /v1/traces").length - postsBefore).toBe(1);
    // The held traces' late spans (and the blocker's child, however it went: stored with it, below).
    expect(out.stats.updatesDelivered).toBeGreaterThanOrEqual(HELD);
    expect(out.stats.updatesFailed + out.stats.tracesFailed + out.stats.tracesDropped).toBe(0);
    const stored = Object.values(service.dev.state.traces);
    const bulk = stored.filter((t) => t.fields.name === `bulk-${format}`);
    expect(bulk.map((t) => t.fields.input).sort()).toEqual(Array.from({ length: BULK }, (_, i) => `question ${i}`).sort());
    expect(bulk.map((t) => t.fields.output).sort()).toEqual(Array.from({ length: BULK }, (_, i) => `answer to question ${i}`).sort());
    const blocked = stored.filter((t) => t.fields.name === `blocker-${format}`);
    expect(blocked.map((t) => t.spans.map((span) => span.name).sort())).toEqual([["blocked-child", `blocker-${format}`]]);
    const held = stored.filter((t) => t.fields.name === `held-${format}`);
    expect(held).toHaveLength(HELD);
    for (const t of held) expect(t.spans.map((s) => s.name).sort()).toEqual([`held-${format}`, "late"]);
    const lateOutputs = held.flatMap((t) => t.spans.filter((s) => s.name === "late").map((s) => (s as { output?: unknown }).output));
    expect(lateOutputs.sort()).toEqual(Array.from({ length: HELD }, (_, i) => `late ${i}`).sort());
  });

  it("a batch taken over many turns whose first answer is lost is sent again, once, and stored once", async () => {
    const keys: string[] = [];
    const proxy = await service.proxy((_n, req) => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return undefined;
      const key = String(req.headers["idempotency-key"]);
      keys.push(key);
      // The service stores it, and its answer is lost: the SDK must retry the same body.
      return keys.indexOf(key) === keys.length - 1 ? "store-then-reset" : undefined;
    });
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "flush", "observe", "stats"])}
       configure({ logLevel: "silent", initialRetryDelayMillis: 20, batch: { flushIntervalMillis: 60000 } });
       const realNow = performance.now.bind(performance);
       let skew = 0;
       performance.now = () => realNow() + (skew += 1);
       const bulk = observe({ name: "lost-${format}" }, (q) => "answer to " + q);
       for (let i = 0; i < ${BULK}; i++) bulk("question " + i);
       const result = await flush();
       console.log(JSON.stringify({ ok: result.ok, stats: stats() }));`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: proxy.url },
    );
    onTestFinished(() => {
      child.process.kill("SIGKILL");
    });
    const done = await child.finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const out = JSON.parse(done.stdout.trim().split("\n").pop()!) as { ok: boolean; stats: { tracesDelivered: number; retries: number } };
    expect(out.ok).toBe(true);
    expect(out.stats.tracesDelivered).toBe(BULK);
    // One batch, sent twice under one key (its first answer lost), nothing else.
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const stored = Object.values(service.dev.state.traces).filter((t) => t.fields.name === `lost-${format}`);
    expect(stored.map((t) => t.fields.output).sort()).toEqual(Array.from({ length: BULK }, (_, i) => `answer to question ${i}`).sort());
  });

  it("shutdown() while a batch is being taken gives up its traces with the queued ones, once, and nothing after", async () => {
    const proxy = await service.proxy(() => undefined);
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "observe", "shutdown", "stats"])}
       configure({ logLevel: "error", batch: { flushIntervalMillis: 60000 } });
       const realNow = performance.now.bind(performance);
       let skew = 0;
       performance.now = () => realNow() + (skew += 1);
       ${blocker(format)}
       const bulk = observe({ name: "cut-${format}" }, (q) => q);
       for (let i = 0; i < ${BULK}; i++) bulk("question " + i);
       const result = await shutdown(0);
       // Anything the exporter still did after shutdown() resolved would show here.
       await new Promise((r) => setTimeout(r, 200));
       console.log(JSON.stringify({ pending: result.pending.length, notDelivered: result.notDelivered.length, delivered: result.delivered, stats: stats() }));`,
      { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: proxy.url },
    );
    onTestFinished(() => {
      child.process.kill("SIGKILL");
    });
    const done = await child.finished;
    expect(done.code).toBe(0);
    const out = JSON.parse(done.stdout.trim().split("\n").pop()!) as { pending: number; notDelivered: number; delivered: number; stats: { tracesFailed: number; queued: number } };
    // Some traces were in a batch being taken (the first slice took a few): all given up with the rest.
    // (And the blocker, queued before them.)
    expect(out).toMatchObject({ pending: 0, notDelivered: BULK + 1, delivered: 0 });
    expect(out.stats.tracesFailed).toBe(BULK + 1);
    expect(out.stats.queued).toBe(0);
    expect(done.stderr.trim().split("\n")).toEqual([expect.stringContaining(`${BULK + 1} trace(s) not delivered: the SDK was shut down`)]);
    expect(Object.values(service.dev.state.traces).filter((t) => t.fields.name === `cut-${format}`)).toHaveLength(0);
  });
});
