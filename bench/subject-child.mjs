// One subject of the side-by-side benchmark in a process of its own, driven by bench/peers.mjs
// over IPC: `init` sets the subject up against its prefix on the receiver, `ab` runs one round
// of workloads A and B, `c` runs workload C (end to end). Answers with the figures measured.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { CHUNK, SPANS_PER_TRACE, subjects, WAVE } from "./subjects.mjs";

let app;
let base;
let expected = 0;
/** False for the bare app, which sends nothing. */
let delivers = true;

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function delivered() {
  if (!delivers) return { spans: 0, bytes: 0 };
  const res = await fetch(`${base}/_stats`);
  return res.json();
}

/** The subject's flush, given up after `ms` (an SDK that cannot deliver in time is flagged, not waited for). */
async function flushWithin(ms) {
  if (gaveUp) ms = 0;
  let timer;
  const late = new Promise((r) => (timer = setTimeout(() => r("late"), ms)));
  const r = await Promise.race([app.flush().then(() => "ok"), late]);
  clearTimeout(timer);
  if (r === "late") gaveUp = true;
  return r;
}

/** Waits until the receiver has every span expected so far, or `ms` passed; returns what it has. */
async function awaitDelivery(ms) {
  const until = performance.now() + ms;
  for (;;) {
    const got = await delivered();
    if (!delivers || got.spans >= expected || performance.now() > until) return got;
    await sleep(10);
  }
}

/** Traces run before workload C is measured. */
const C_WARM_TRACES = 500;
const C_PRODUCE_BUDGET_MS = Number(process.env.BENCH_C_PRODUCE_BUDGET_MS ?? 15_000);
const FLUSH_DEADLINE_MS = Number(process.env.BENCH_FLUSH_DEADLINE_MS ?? 10_000);
/** A round of a slow subject stops after this much time: per-span figures are of what it did. */
const ROUND_BUDGET_MS = Number(process.env.BENCH_ROUND_BUDGET_MS ?? 2500);
/** Once a flush missed its deadline, later ones are not waited for (the subject is flagged anyway). */
let gaveUp = false;

// Chunks of CHUNK traces (or calls): the chunk's calls are timed as in-call cost, the flush
// after it as export cost (no timer or I/O callback runs inside a chunk, so no export does).
async function roundA(traces) {
  let call = 0;
  let exp = 0;
  let late = false;
  let done = 0;
  const stop = performance.now() + ROUND_BUDGET_MS;
  for (let i = 0; i < traces && performance.now() < stop; i += CHUNK) {
    done += CHUNK;
    const t0 = cpuNs();
    for (let k = 0; k < CHUNK; k += 250) {
      const wave = [];
      for (let j = 0; j < 250; j++) wave.push(app.agent(`question ${i + k + j}`));
      await Promise.all(wave);
    }
    const t1 = cpuNs();
    expected += CHUNK * SPANS_PER_TRACE;
    late ||= (await flushWithin(FLUSH_DEADLINE_MS)) === "late";
    call += t1 - t0;
    exp += cpuNs() - t1;
  }
  return { inCall: call / (done * SPANS_PER_TRACE), export: exp / (done * SPANS_PER_TRACE), late };
}

async function roundB(calls) {
  let call = 0;
  let exp = 0;
  let acc = 0;
  let late = false;
  let done = 0;
  const stop = performance.now() + ROUND_BUDGET_MS;
  for (let i = 0; i < calls && performance.now() < stop; i += CHUNK) {
    done += CHUNK;
    const t0 = cpuNs();
    for (let j = 0; j < CHUNK; j++) acc += app.sync(i + j, 1);
    const t1 = cpuNs();
    expected += CHUNK;
    late ||= (await flushWithin(FLUSH_DEADLINE_MS)) === "late";
    call += t1 - t0;
    exp += cpuNs() - t1;
  }
  if (acc === 0) throw new Error("unreachable");
  return { inCall: call / done, export: exp / done, late };
}

/** Workload C: workload A in waves of 25 concurrent traces, the loop turning between waves as a server's would. */
async function roundC(traces, deadlineMs) {
  // Warm up (JIT, connections), then measure from a collected heap.
  for (let i = 0; i < C_WARM_TRACES; i += WAVE) await Promise.all(Array.from({ length: WAVE }, (_, j) => app.agent(`warm ${i + j}`)));
  expected += C_WARM_TRACES * SPANS_PER_TRACE;
  await flushWithin(FLUSH_DEADLINE_MS);
  await awaitDelivery(FLUSH_DEADLINE_MS);
  const before = await delivered();
  globalThis.gc?.();
  await sleep(50);
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const cpu0 = cpuNs();
  // A slow subject produces for at most C_PRODUCE_BUDGET_MS: its figures are of what it produced.
  const stop = t0 + C_PRODUCE_BUDGET_MS;
  let produced = 0;
  for (let i = 0; i < traces && performance.now() < stop; i += WAVE) {
    produced += WAVE;
    const wave = [];
    for (let j = 0; j < WAVE; j++) wave.push(app.agent(`question ${i + j}`));
    await Promise.all(wave);
    await tick();
  }
  const producedAt = performance.now();
  expected += produced * SPANS_PER_TRACE;
  const flushed = await flushWithin(deadlineMs);
  const got = await awaitDelivery(Math.max(0, deadlineMs - (performance.now() - producedAt)));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuNs() - cpu0;
  const spansProduced = produced * SPANS_PER_TRACE;
  h.disable();
  clearInterval(sampler);
  const spans = got.spans - before.spans;
  return {
    spans: spansProduced,
    delivered: spans,
    flushed,
    spansPerSecond: Math.round(spans / seconds),
    cpuNsPerSpan: Math.round(cpu / spansProduced),
    bytesPerSpan: spans > 0 ? Math.round((got.bytes - before.bytes) / spans) : null,
    p99LoopDelayMs: Number((h.percentile(99) / 1e6).toFixed(2)),
    rssGrowthMB: Number(((peak - rss0) / 1e6).toFixed(1)),
  };
}

/**
 * Workload D: workload A at a fixed offered load (waves of 25 traces due every so often, fired
 * from a 1 ms timer), as a server under steady traffic: p99 event-loop delay and CPU use at the
 * same load for every subject (C's p99 is over each subject's own pace: a slower SDK spreads the
 * same export turns over a longer run). Run in C's process, after C (warm).
 */
async function roundD(spansPerSecond, ms, deadlineMs) {
  const waveSpans = WAVE * SPANS_PER_TRACE;
  const waveEveryMs = (1000 * waveSpans) / spansPerSecond;
  await flushWithin(FLUSH_DEADLINE_MS);
  globalThis.gc?.();
  await sleep(50);
  let fired = 0;
  let pending = 0;
  let maxPending = 0;
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const cpu0 = cpuNs();
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (now - t0 >= ms) {
        clearInterval(timer);
        resolve();
        return;
      }
      while (t0 + fired * waveEveryMs <= now) {
        fired++;
        for (let j = 0; j < WAVE; j++) {
          pending++;
          app.agent(`steady ${fired}.${j}`).then(() => pending--);
        }
        maxPending = Math.max(maxPending, pending);
      }
    }, 1);
  });
  const wall = performance.now() - t0;
  const cpu = cpuNs() - cpu0;
  h.disable();
  expected += fired * waveSpans;
  const flushed = await flushWithin(deadlineMs);
  const got = await awaitDelivery(deadlineMs);
  return {
    spans: fired * waveSpans,
    offeredSpansPerSecond: spansPerSecond,
    flushed,
    delivered: got.spans >= expected,
    // Traces started and not yet ended at the worst moment: a subject that cannot keep up piles them up.
    maxPendingTraces: maxPending,
    p99LoopDelayMs: Number((h.percentile(99) / 1e6).toFixed(2)),
    cpuPercent: Number(((100 * cpu) / (wall * 1e6)).toFixed(1)),
  };
}

process.on("message", async (msg) => {
  try {
    if (msg.cmd === "exit") process.exit(0);
    if (msg.cmd === "init") {
      base = msg.url;
      delivers = msg.name !== "bare";
      app = await subjects[msg.name](msg.url);
      process.send({ ok: true });
    } else if (msg.cmd === "ab") {
      const a = await roundA(msg.traces);
      const b = await roundB(msg.calls);
      const got = await awaitDelivery(gaveUp ? 0 : FLUSH_DEADLINE_MS);
      process.send({ ok: true, a, b, expected, delivered: got.spans, bytes: got.bytes });
    } else if (msg.cmd === "c") {
      process.send({ ok: true, c: await roundC(msg.traces, msg.deadlineMs) });
    } else if (msg.cmd === "d") {
      process.send({ ok: true, d: await roundD(msg.spansPerSecond, msg.ms, msg.deadlineMs) });
    }
  } catch (err) {
    process.send({ ok: false, error: String(err?.stack ?? err) });
  }
});
process.send({ ready: true });
