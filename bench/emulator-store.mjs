// Benchmark (not a test) of the emulator's --data journal: write cost as the store grows from
// 1k to 100k traces, and restart time with 100k traces. Runs the TypeScript source bundled by
// esbuild (no dist needed): node --expose-gc bench/emulator-store.mjs [maxTraces=100000]
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";

const dir = mkdtempSync(join(tmpdir(), "evaltrace-bench-"));
const bundle = join(dir, "emulator.mjs");
buildSync({ entryPoints: [new URL("../src/devserver/index.ts", import.meta.url).pathname], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "silent" });
const { startDevServer } = await import(bundle);

const total = Number(process.argv[2] ?? 100_000);
const file = join(dir, "state.jsonl");
const T0 = "2026-06-01T10:00:00.000Z";
const T1 = "2026-06-01T10:00:01.000Z";
const body = (uuid) =>
  JSON.stringify({ uuid, name: "bench", startTime: T0, endTime: T1, input: "question", output: "answer", baseSpans: [{ uuid: `${uuid}-root`, name: "root", startTime: T0, endTime: T1 }, { uuid: `${uuid}-child`, name: "child", parentUuid: `${uuid}-root`, startTime: T0, endTime: T1 }] });

let dev = await startDevServer({ port: 0, dataFile: file, strict: true });
const headers = { SERVICE_API_KEY: dev.projectKey, "content-type": "application/json" };
const checkpoints = new Set([1_000, 10_000, 50_000, 100_000, total]);
const sample = 500;
console.log(`stored traces | mean ms per acknowledged write (fsync'd) over the next ${sample} writes | journal MB`);
for (let i = 0; i < total; ) {
  // Fill quickly with 8 writers, then time sequential writes at each checkpoint.
  const next = Math.min(...[...checkpoints].filter((c) => c > i));
  const fill = async (w) => {
    for (let j = i + w; j < next - sample; j += 8) await fetch(`${dev.url}/v1/traces`, { method: "POST", headers, body: body(`t${j}`) });
  };
  await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(fill));
  i = Math.max(i, next - sample);
  const started = performance.now();
  for (; i < next; i++) {
    const res = await fetch(`${dev.url}/v1/traces`, { method: "POST", headers, body: body(`t${i}`) });
    if (res.status !== 200) throw new Error(`write ${i}: ${res.status} ${await res.text()}`);
  }
  console.log(`${String(next).padStart(13)} | ${((performance.now() - started) / sample).toFixed(2).padStart(8)} | ${(statSync(file).size / 1e6).toFixed(1)}`);
}
await dev.close();
dev = undefined;
// Three restarts (the median is the figure); memory after the last, with a page of the viewer read.
const restarts = [];
for (let k = 0; k < 3; k++) {
  globalThis.gc?.();
  const started = performance.now();
  dev = await startDevServer({ port: 0, dataFile: file, strict: true });
  restarts.push(performance.now() - started);
  if (k < 2) await dev.close();
}
const page = await fetch(`${dev.url}/_dev/view/traces?limit=50`);
if (page.status !== 200) throw new Error(`viewer page: ${page.status}`);
globalThis.gc?.();
const median = [...restarts].sort((a, b) => a - b)[1];
console.log(
  `restart with ${Object.keys(dev.state.traces).length} traces (${(statSync(file).size / 1e6).toFixed(1)} MB journal): ${restarts.map((r) => r.toFixed(0)).join(", ")} ms (median ${median.toFixed(0)}); ${dev.tracesInMemory ?? "all"} traces held in memory, heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`,
);
await dev.close();
