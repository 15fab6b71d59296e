import { describe, expect, it } from "vitest";
import { formats, load, runChild } from "../helpers/child.js";
import { faultyEmulator } from "../helpers/faulty-emulator.js";

// Export work runs in slices of a fraction of a millisecond, one per turn of the event loop:
// a batch is taken, and its body written, over as many turns as they take, and still goes as
// one request. The app in a child process (the built package, ESM and CommonJS) makes every
// trace outlast a slice (its `performance.now()` moves a millisecond per call), counts the turns
// the export takes, and, on each of those turns, ends a span of a trace sent earlier: each late
// update is written (PUT) while a body is half written, and both must arrive intact.
const service = faultyEmulator();

const N = 40;

describe.each(formats)("export in slices (%s)", (format) => {
  it("takes and writes a batch a trace per turn, one request, while late updates are written between the slices", async () => {
    const requests: string[] = [];
    const proxy = await service.proxy((_n, req) => {
      requests.push(`${req.method} ${req.url.split("/").slice(0, 3).join("/")}`);
      return undefined;
    });
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "flush", "observe", "stats"])}
       configure({ logLevel: "silent", batch: { flushIntervalMillis: 60000 } });
       // ${N} traces sent with a span still open, each ended later, on a turn of its own.
       const gates = [];
       const late = observe({ name: "late" }, async (i) => { await new Promise((r) => gates.push(r)); return "late " + i; });
       const held = observe({ name: "held-${format}" }, async (i) => { void late(i); return i; });
       for (let i = 0; i < ${N}; i++) await held(i);
       const first = await flush(0);
       while (stats().tracesDelivered < ${N}) await new Promise((r) => setTimeout(r, 5));
       console.log("held sent");
       // From here on, every trace outlasts a slice.
       const realNow = performance.now.bind(performance);
       let skew = 0;
       performance.now = () => realNow() + (skew += 1);
       const bulk = observe({ name: "bulk-${format}" }, (q) => "answer to " + q);
       for (let i = 0; i < ${N}; i++) bulk("question " + i);
       const turns = [];
       let done = false;
       setImmediate(function turn() {
         const s = stats();
         turns.push([s.queued, s.tracesDelivered, gates.length, s.inFlight, s.bytesSent]);
         // While the batch is written: taken (none queued), not delivered yet.
         if (s.queued === 0 && s.tracesDelivered === ${N}) gates.shift()?.();
         if (!done) setImmediate(turn);
       });
       const result = await flush();
       done = true;
       while (gates.length > 0) gates.shift()();
       const last = await flush();
       console.log(JSON.stringify({ first: first.timedOut, ok: result.ok && last.ok, turns, stats: stats() }));`,
      { SERVICE_API_KEY: service.dev.projectKey, SERVICE_BASE_URL: proxy.url },
    );
    await child.waitFor("held sent");
    const postsBefore = requests.filter((r) => r === "POST /v1/traces").length;
    const done = await child.finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const out = JSON.parse(done.stdout.trim().split("\n").pop()!) as { ok: boolean; turns: [number, number, number, number, number][]; stats: { updatesDelivered: number; updatesFailed: number; tracesFailed: number; tracesDropped: number } };
    expect(out.ok).toBe(true);

    // Per turn of the app: [queued, delivered, late spans still open, requests in flight, bytes sent].
    const turns = out.turns;
    // Taking: a trace per turn, until the batch went to its request slot (turn `handed`).
    const handed = turns.findIndex(([, , , inFlight]) => inFlight > 0);
    expect(handed).toBeGreaterThanOrEqual(N - 2);
    expect(turns.slice(0, handed).every(([queued]) => queued === N)).toBe(true);
    // Writing: a trace per turn again, until the body of the batch went (turn `posted`: bytes
    // sent grew by far more than a late update's), with late updates written on those turns.
    const posted = turns.findIndex(([, , , , bytes], i) => i > 0 && bytes - turns[i - 1]![4] > 5000);
    expect(posted - handed).toBeGreaterThanOrEqual(N / 2);
    const updatesMeanwhile = turns.slice(handed, posted).filter(([, , open], i) => open > turns[handed + i + 1]![2]).length;
    expect(updatesMeanwhile).toBeGreaterThanOrEqual(N / 4);

    // One request for the whole batch; every trace and every late span stored once, intact.
    expect(requests.filter((r) => r === "POST /v1/traces").length - postsBefore).toBe(1);
    expect(out.stats.updatesDelivered).toBe(N);
    expect(out.stats.updatesFailed + out.stats.tracesFailed + out.stats.tracesDropped).toBe(0);
    const stored = Object.values(service.dev.state.traces);
    const bulk = stored.filter((t) => t.fields.name === `bulk-${format}`);
    expect(bulk.map((t) => t.fields.input).sort()).toEqual(Array.from({ length: N }, (_, i) => `question ${i}`).sort());
    expect(bulk.map((t) => t.fields.output).sort()).toEqual(Array.from({ length: N }, (_, i) => `answer to question ${i}`).sort());
    const held = stored.filter((t) => t.fields.name === `held-${format}`);
    expect(held).toHaveLength(N);
    for (const t of held) expect(t.spans.map((s) => s.name).sort()).toEqual([`held-${format}`, "late"]);
    const lateOutputs = held.flatMap((t) => t.spans.filter((s) => s.name === "late").map((s) => (s as { output?: unknown }).output));
    expect(lateOutputs.sort()).toEqual(Array.from({ length: N }, (_, i) => `late ${i}`).sort());
  });
});
