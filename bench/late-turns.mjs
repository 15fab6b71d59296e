// Where workload C's late turns come from (`node bench/run.mjs late`, under a minute, Linux):
// each subject runs C's shape (bench/late-turns-child.mjs) in RUNS fresh processes, the
// subjects alternating, and the child reads, for every gap of more than 3 ms between two calls
// of a 1 ms timer (a late turn), how long its main thread waited for a CPU in it. On a 2-core
// machine the app's thread shares the cores with V8's compiler and GC threads and with the
// receiver, which parses what the subject sends; a turn of the app's that the OS preempted is
// late whatever the SDK was doing. Per subject, the median of: C's p99 loop delay, its samples
// (a faster subject's run has fewer, so its p99 is a worse turn), late turns, their length and
// how much of it the thread waited for a CPU, and the receiver's CPU time (in steps of 10 ms).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median, startReceiver, table } from "./common.mjs";
import { builds, WAVE } from "./subjects.mjs";

const RUNS = Number(process.env.BENCH_LATE_RUNS ?? 10);
const TRACES = Math.max(1, Math.round(Number(process.env.BENCH_LATE_TRACES ?? 20_000) / WAVE)) * WAVE;
const NAMES = ["raw OTel + OTLP", "evaltrace", ...Object.keys(builds).map((b) => `evaltrace@${b}`), "OpenInference", "Langfuse"];

export async function late() {
  const receiver = await startReceiver();
  const child = fileURLToPath(new URL("./late-turns-child.mjs", import.meta.url));
  const runs = Object.fromEntries(NAMES.map((n) => [n, []]));
  /**
   * Each subject's failed runs and the first one's error. A failed run (its flush threw: raw
   * OTel's exporter at its default of 30 exports in flight refused a batch on a slow day, before
   * bench/subjects.mjs raised the limit) is left out of the medians, and the subject runs on.
   */
  const errors = {};
  try {
    for (let r = 0; r < RUNS; r++) {
      for (const name of NAMES) {
        const run = spawnSync(process.execPath, ["--expose-gc", child, name, receiver.url, String(receiver.pid), String(TRACES)], { encoding: "utf8" });
        const line = (run.stdout ?? "").trim().split("\n").at(-1) ?? "";
        if (run.error || run.status !== 0 || !line.startsWith("{")) {
          const how = run.error ? String(run.error.message) : run.signal ? `killed by ${run.signal}` : `exit ${run.status}`;
          errors[name] ??= { runs: 0, first: `run ${r + 1}: ${how}: ${firstError(run.stderr)}` };
          errors[name].runs++;
          process.stdout.write("x");
          continue;
        }
        runs[name].push(JSON.parse(line));
        process.stdout.write(".");
      }
    }
  } finally {
    await receiver.stop();
  }
  console.log("");
  const results = {};
  const rows = [];
  for (const name of NAMES) {
    const done = runs[name];
    const res = { runs: done.length, ...(errors[name] ? { failedRuns: errors[name].runs, failed: errors[name].first } : {}) };
    results[name] = res;
    if (done.length > 0) {
      const m = (f) => median(done.map(f));
      Object.assign(res, {
        p99Ms: round(m((x) => x.p99Ms)),
        samples: m((x) => x.samples),
        lateTurns: m((x) => x.lateTurns),
        lateMs: round(m((x) => x.lateMs)),
        lateShareWaitingForCpu: done.every((x) => x.lateWaitMs !== null) ? round(m((x) => (x.lateMs > 0 ? x.lateWaitMs / x.lateMs : 0))) : null,
        receiverCpuMs: done.every((x) => x.receiverCpuMs !== null) ? m((x) => x.receiverCpuMs) : null,
        perRunP99Ms: done.map((x) => round(x.p99Ms)),
      });
    }
    rows.push({
      subject: errors[name] ? `${name} (${errors[name].runs} of ${RUNS} runs failed)` : name,
      "C p99 ms": res.p99Ms ?? "-",
      "p99 of runs": res.perRunP99Ms?.join(" ") ?? "-",
      samples: res.samples ?? "-",
      "late turns": res.lateTurns ?? "-",
      "their ms": res.lateMs ?? "-",
      "of it waiting for a CPU": res.lateShareWaitingForCpu === undefined ? "-" : res.lateShareWaitingForCpu === null ? "n/a (no /proc)" : `${Math.round(res.lateShareWaitingForCpu * 100)}%`,
      "receiver CPU ms": res.receiverCpuMs ?? "n/a",
    });
  }
  table(rows);
  for (const [name, { runs, first }] of Object.entries(errors)) console.log(`(!) ${name}: ${runs} run(s) failed, left out of its medians; the first: ${first}`);
  console.log(
    `(C's shape: ${TRACES} agent traces in waves of ${WAVE} after 500 warm-up traces and a GC, then a flush; ${RUNS} fresh processes per subject, alternating; medians. A late turn: more than 3 ms between two calls of a 1 ms timer. "Waiting for a CPU": the main thread was runnable but not running, from /proc/thread-self/schedstat.)`,
  );
  return { runs: RUNS, traces: TRACES, subjects: results };
}

/** The first line of a child's stderr that names an error ("Error: ...", "TypeError: ..."), else its first line. */
function firstError(stderr) {
  const lines = (stderr ?? "").trim().split("\n");
  return (lines.find((l) => /^\s*\w*Error\b/.test(l)) ?? lines[0] ?? "").trim().slice(0, 200);
}

function round(x) {
  return Number(x.toFixed(2));
}
