// Alternated start-up runs of a few builds by file (issue 46): `node bench/startup/alternate.mjs
// <rounds> <script> bare <name>=<build>/auto.js ...` runs <script> (bench/startup/app.mjs or
// empty.mjs) bare and under `--import` of each build's auto.js, in turn, for <rounds> rounds after
// one uncounted, and prints each subject's median CPU ms (every thread, by the end of the
// script's top level) and the median of its per-round ratio to the first subject. Builds are
// loaded by file, all alike (the bench's own `dist/` subject goes through the package name).
import { spawnSync } from "node:child_process";

const [rounds, script, ...subjects] = process.argv.slice(2);
const env = { ...process.env, EVALTRACE_API_KEY: "svc_local_proj_bench", EVALTRACE_BASE_URL: "http://127.0.0.1:9" };
const cpu = Object.fromEntries(subjects.map((s) => [s, []]));
for (let round = -1; round < Number(rounds); round++) {
  for (const subject of subjects) {
    const file = subject.split("=")[1];
    const run = spawnSync(process.execPath, file ? ["--import", file, script] : [script], { env, encoding: "utf8" });
    if (round >= 0) cpu[subject].push(JSON.parse(run.stdout.trim().split("\n").pop()).cpu);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const first = cpu[subjects[0]];
for (const subject of subjects) {
  const ratio = median(cpu[subject].map((v, i) => v / first[i]));
  console.log(`${subject.split("=")[0].padEnd(12)} ${median(cpu[subject]).toFixed(0).padStart(6)} ms CPU, ${ratio.toFixed(3)}x the first (median of per-round ratios)`);
}
