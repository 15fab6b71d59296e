// What the disk spool costs (docs/spool.md). One process, subjects interleaved round by round
// (A B A B ...), CPU time of the whole process per trace (the app's work, the SDK's, and its I/O):
//   service up:   the same traffic, paced so that the receiver keeps up, without a spool, with one
//                 (memory-first: not touched), and with one writing every batch ahead;
//   service down: the same traffic to an address where nothing listens, with a spool (each fsync
//                 policy; write-ahead): what spooling a trace costs, against the same traffic sent while up.
//   node bench/run.mjs spool          (BENCH_QUICK=1: fewer rounds)
// BENCH_BUILDS="before=.builds/before/index.js" adds that build's "spool" subjects, up and down, to
// the same run (an ESM entry file: bundle one with esbuild, packages external), so that the spool
// before and after a change is measured in one run.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as current from "evaltrace";
import { median, startReceiver, table, tick } from "./common.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
const TRACES = QUICK ? 20_000 : 50_000;
const ROUNDS = QUICK ? 3 : 5;
const WAVE = 200;

/** A port where nothing listens: connections are refused at once, as for a service that is down. */
async function deadPort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

/** One round: `traces` three-span traces in waves, then (while up) everything delivered. CPU µs per trace. */
async function round(options, traces, waitDelivered, sdk = current) {
  const { configure, flush, observe, shutdown, stats } = sdk;
  configure({ apiKey: "svc_local_proj_bench", registerExitHooks: false, logLevel: "error", ...options });
  const tool = observe({ name: "tool", type: "tool" }, (x) => x * 2);
  const agent = observe({ name: "agent", type: "agent" }, async (q) => tool(q) + tool(q + 1));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < traces; i += WAVE) {
    const wave = [];
    for (let j = 0; j < WAVE; j++) wave.push(agent(i + j));
    await Promise.all(wave);
    await tick();
    // Paced as an app the service keeps up with: the queue stays under the spool's threshold
    // while the service is up (nothing should touch the disk then).
    while (stats().queued > 1000) await new Promise((r) => setTimeout(r, 1));
  }
  if (waitDelivered) await flush(60_000);
  else for (;;) {
    // Down: wait until everything left the queue (to the spool, or dropped) or the in-flight
    // requests gave up; the spool's writes are asynchronous.
    const s = stats();
    if (s.queued === 0 && s.tracesSpooled + s.tracesDropped + s.tracesFailed >= traces) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  const s = stats();
  await shutdown(2000);
  return { usPerTrace: (cpu.user + cpu.system) / traces, seconds, stats: s };
}

export async function spool() {
  const receiver = await startReceiver();
  const down = await deadPort();
  const base = mkdtempSync(join(os.tmpdir(), "evaltrace-bench-spool-"));
  let n = 0;
  const freshDir = () => join(base, `s${n++}`);
  const dirBytes = (dir) => {
    try {
      return readdirSync(dir).reduce((b, f) => b + statSync(join(dir, f)).size, 0);
    } catch {
      return 0;
    }
  };
  // Fast retries, so that a batch in flight when the service is down gives up (and is spooled) soon.
  const downOptions = { baseUrl: down, maxRetries: 1, initialRetryDelayMillis: 10, maxRetryDelayMillis: 20, batch: { maxQueuedTraces: 10_000 } };
  const subjects = {
    "up, no spool": () => round({ baseUrl: receiver.url }, TRACES, true),
    "up, spool (memory-first)": () => round({ baseUrl: receiver.url, spool: { dir: freshDir() } }, TRACES, true),
    "up, spool write-ahead": () => round({ baseUrl: receiver.url, spool: { dir: freshDir(), writeAhead: true } }, TRACES, true),
    "up, spool write-ahead (fsync always)": () => round({ baseUrl: receiver.url, spool: { dir: freshDir(), writeAhead: true, fsync: "always" } }, TRACES, true),
    "down, spool (fsync none)": () => spooled({ fsync: "none" }),
    "down, spool (fsync rotate, default)": () => spooled({ fsync: "rotate" }),
    "down, spool (fsync always)": () => spooled({ fsync: "always" }),
    "down, spool write-ahead": () => spooled({ writeAhead: true }),
  };
  for (const [name, file] of Object.entries(builds())) {
    const sdk = await import(pathToFileURL(resolve(file)).href);
    subjects[`up, spool @${name}`] = () => round({ baseUrl: receiver.url, spool: { dir: freshDir() } }, TRACES, true, sdk);
    subjects[`down, spool @${name}`] = () => spooled({}, sdk);
  }
  const diskPerTrace = [];
  async function spooled(spool, sdk = current) {
    const dir = freshDir();
    const r = await round({ ...downOptions, spool: { dir, ...spool } }, TRACES, false, sdk);
    diskPerTrace.push(dirBytes(dir) / Math.max(1, r.stats.tracesSpooled));
    return r;
  }
  // Warm-up: one round of each, not counted.
  for (const run of Object.values(subjects)) await run();
  const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  const lost = Object.fromEntries(Object.keys(subjects).map((k) => [k, 0]));
  const spooledCount = Object.fromEntries(Object.keys(subjects).map((k) => [k, 0]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(subjects)) {
      const { usPerTrace, stats: s } = await run();
      samples[name].push(usPerTrace);
      lost[name] += s.tracesDropped + s.tracesFailed;
      spooledCount[name] += s.tracesSpooled;
    }
  }
  await receiver.stop();
  rmSync(base, { recursive: true, force: true });
  const up = median(samples["up, no spool"]);
  const rows = Object.entries(samples).map(([name, xs]) => ({
    subject: name,
    "CPU µs/trace (median)": median(xs).toFixed(1),
    "vs up, no spool": (median(xs) / up).toFixed(3),
    "lost (dropped+failed)": lost[name],
    "spooled (all rounds)": spooledCount[name],
  }));
  table(rows);
  const result = {
    traces: TRACES,
    rounds: ROUNDS,
    spansPerTrace: 3,
    rows,
    upRatio: Number((median(samples["up, spool (memory-first)"]) / up).toFixed(3)),
    writeAheadUpRatio: Number((median(samples["up, spool write-ahead"]) / up).toFixed(3)),
    diskBytesPerTrace: Math.round(median(diskPerTrace)),
  };
  console.log(`spool configured while up / no spool: ${result.upRatio}; write-ahead while up / no spool: ${result.writeAheadUpRatio}; ${result.diskBytesPerTrace} bytes on disk per spooled trace`);
  return result;
}

/** BENCH_BUILDS="name=entry.js,...": other builds of evaltrace whose spool is measured beside this one. */
function builds() {
  return Object.fromEntries(
    (process.env.BENCH_BUILDS ?? "")
      .split(",")
      .filter(Boolean)
      .map((entry) => entry.split("=")),
  );
}
