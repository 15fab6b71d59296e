// Garbage collection per subject (`node bench/run.mjs gc`, about a minute): each subject runs
// workloads B and C in a process of its own under `--trace-gc-nvp`, and the GCs of that process
// are summed: bytes promoted to the old generation, minor GCs (scavenges) and their pause, full
// GCs. What an export path keeps alive past one minor GC is promoted, and is then paid for again
// by the full GCs and by the scavenges that copy it; it shows as p99 loop delay and RSS in C.
// A subject that holds nothing longer than its traces take promotes almost nothing in B.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startReceiver, table } from "./common.mjs";
import { builds, CHUNK, SPANS_PER_TRACE, WAVE } from "./subjects.mjs";

// Whole chunks and waves (gc-child.mjs runs B in chunks, C in waves), so that the per-span
// figures divide by what ran.
const B_CALLS = Math.max(1, Math.round(Number(process.env.BENCH_GC_B_CALLS ?? 60_000) / CHUNK)) * CHUNK;
const C_TRACES = Math.max(1, Math.round(Number(process.env.BENCH_GC_C_TRACES ?? 20_000) / WAVE)) * WAVE;
const NAMES = ["raw OTel + OTLP", "evaltrace", ...Object.keys(builds).map((b) => `evaltrace@${b}`)];

/**
 * The `--trace-gc-nvp` lines of one process, summed: bytes promoted by its minor GCs (the young
 * objects that outlived one), the minor GCs and their pauses, and its full GCs (`gc=mc`).
 */
export function sumGcTrace(text, pid) {
  const out = { scavenges: 0, scavengeMs: 0, maxScavengeMs: 0, promotedBytes: 0, fullGcs: 0 };
  for (const line of text.split("\n")) {
    if (!line.startsWith(`[${pid}:`)) continue;
    if (line.includes(" gc=s ")) {
      const pause = nvpField(line, "pause");
      out.scavenges++;
      out.scavengeMs += pause;
      out.maxScavengeMs = Math.max(out.maxScavengeMs, pause);
      out.promotedBytes += nvpField(line, "promoted");
    } else if (line.includes(" gc=mc ")) out.fullGcs++;
  }
  return out;
}

/** A numeric `key=value` field of a `--trace-gc-nvp` line (0 when absent). */
function nvpField(line, key) {
  return Number(new RegExp(` ${key}=([0-9.]+)`).exec(line)?.[1] ?? 0);
}

export async function gc() {
  const receiver = await startReceiver();
  const child = fileURLToPath(new URL("./gc-child.mjs", import.meta.url));
  const rows = [];
  const results = {};
  try {
    for (const name of NAMES) {
      for (const [workload, count, spansPer] of [
        ["B", B_CALLS, 1],
        ["C", C_TRACES, SPANS_PER_TRACE],
      ]) {
        const run = spawnSync(process.execPath, ["--trace-gc-nvp", child, name, workload, receiver.url, String(count)], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
        const pid = /PID (\d+)/.exec(run.stdout)?.[1];
        if (run.status !== 0 || !pid || !run.stdout.includes("DONE")) {
          rows.push({ subject: name, workload, error: `exit ${run.status}: ${(run.stderr || "").slice(0, 200)}` });
          continue;
        }
        const s = sumGcTrace(run.stdout, pid);
        const perK = 1000 / (count * spansPer);
        const r = {
          spans: count * spansPer,
          promotedKBPer1kSpans: Number(((s.promotedBytes / 1024) * perK).toFixed(1)),
          scavenges: s.scavenges,
          scavengeMsPer1kSpans: Number((s.scavengeMs * perK).toFixed(3)),
          maxScavengeMs: Number(s.maxScavengeMs.toFixed(2)),
          fullGcs: s.fullGcs,
        };
        (results[name] ??= {})[workload] = r;
        rows.push({ subject: name, workload, spans: r.spans, "promoted by minor GCs, KB/1k spans": r.promotedKBPer1kSpans, scavenges: r.scavenges, "scavenge ms/1k spans": r.scavengeMsPer1kSpans, "max scavenge ms": r.maxScavengeMs, "full GCs": r.fullGcs });
      }
    }
  } finally {
    await receiver.stop();
  }
  table(rows);
  console.log(`(one process per subject and workload, under --trace-gc-nvp; B: ${B_CALLS} one-span calls flushed every ${CHUNK}; C: ${C_TRACES} agent traces in waves of ${WAVE}. Figures include the process's start-up, about 2.5 MB promoted.)`);
  return results;
}
