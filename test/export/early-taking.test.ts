import { afterEach, describe, expect, it } from "vitest";
import { flush, observe, shutdown, stats } from "../../src/index.js";
import { ManualClock, settle, waitUntil } from "../helpers/manual-clock.js";
import { allSpans, postedTraces, type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

// Queued traces are written into the next batch as they come (from 16 queued spans on), before
// the batch is due (export/trace-exporter.ts, takeEarly). What must not change: what each
// request carries, when it goes, the byte and span limits, a trace with a span still running
// (its late spans still join it), and what shutdown counts.

let recorder: Recorder | undefined;
afterEach(async () => {
  await shutdown(0);
  await recorder?.close();
  recorder = undefined;
});

const KEY = "svc_local_proj_EARLY";

describe("traces written into the next batch before it is due", () => {
  it("sends nothing before the batch is due, then each trace once, within the byte limit, when the bytes overflow first", async () => {
    recorder = await startRecorder();
    const clock = new ManualClock();
    configureForTest(recorder.url, KEY, { clock, batch: { maxSpansPerRequest: 1000, maxRequestBytes: 4096, flushIntervalMillis: 1000 } });
    const f = observe({ name: "big" }, (i: number) => `${i}:${"z".repeat(700)}`);
    for (let i = 0; i < 40; i++) f(i);
    // About five traces fill 4 KiB: the batches overflowed by bytes go without the interval; the
    // last one, short of its spans and bytes, waits for it (the clock is held).
    const rec = recorder;
    await waitUntil(() => postedTraces(rec.requests).length > 0, "the batches filled by their bytes");
    await settle();
    expect(postedTraces(recorder.requests).length).toBeLessThan(40);
    await clock.advance(1000);
    expect(await flush()).toMatchObject({ ok: true });
    const inputs = postedTraces(recorder.requests).map((t) => t.input);
    expect(inputs).toHaveLength(40);
    expect(new Set(inputs).size).toBe(40);
    for (const r of recorder.requests) expect(r.raw.length).toBeLessThanOrEqual(4096);
    expect(stats()).toMatchObject({ queued: 0, tracesDelivered: 40 });
  });

  it("leaves a trace with a span still running in the queue: the span that ends after its root goes in its POST, and the traces behind it wait with it", async () => {
    recorder = await startRecorder();
    configureForTest(recorder.url, KEY, { batch: { maxSpansPerRequest: 1000, flushIntervalMillis: 3_600_000 } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const f = observe({ name: "quick" }, (i: number) => i);
    for (let i = 0; i < 20; i++) f(i);
    let background: Promise<string> | undefined;
    await observe({ name: "root" }, async () => {
      background = observe({ name: "after-root" }, async () => {
        await gate;
        return "late";
      })();
    })();
    for (let i = 20; i < 40; i++) f(i);
    expect(stats()).toMatchObject({ queued: 41, inFlight: 0 });
    release();
    await background;
    expect(await flush()).toMatchObject({ ok: true, delivered: 41 });
    expect(recorder.requests.filter((r) => r.method === "PUT")).toHaveLength(0);
    const root = postedTraces(recorder.requests).find((t) => t.name === "root")!;
    expect(allSpans(root).map((s) => s.name).sort()).toEqual(["after-root", "root"]);
  });

  it("counts the traces written ahead, and one that overflowed the bytes, as given up at a shutdown that cannot send them", async () => {
    recorder = await startRecorder(() => "stall");
    configureForTest(recorder.url, KEY, { batch: { maxSpansPerRequest: 1000, maxRequestBytes: 4096, concurrency: 1, flushIntervalMillis: 3_600_000 } });
    const f = observe({ name: "big" }, (i: number) => `${i}:${"z".repeat(700)}`);
    for (let i = 0; i < 40; i++) f(i);
    await settle();
    const result = await shutdown(0);
    // Every trace is accounted for: the two in the request that stalled pending, the other 38
    // (written ahead, one of them past the bytes of that batch) given up and counted.
    expect(result).toMatchObject({ ok: false, delivered: 0 });
    expect(result.pending).toHaveLength(2);
    expect(result.notDelivered).toHaveLength(38);
    expect(stats()).toMatchObject({ queued: 0, tracesFailed: 38, tracesDropped: 0 });
  });
});
