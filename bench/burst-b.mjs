// Workload B in bursts (issue 46): 20,000 one-span traces queued before each flush, 12 rounds, in
// this process; prints the process's CPU ms per 1,000 spans. With --cpu-prof for a profile:
//   node [--cpu-prof --cpu-prof-dir=<dir>] bench/burst-b.mjs [an ESM entry file of another build]
import { resolve } from "node:path";
import { startReceiver } from "./common.mjs";
import { subjects } from "./subjects.mjs";

const receiver = await startReceiver();
const entry = process.argv[2];
const subject = entry ? await subjects["evaltrace@burst"]?.(receiver.url) : await subjects.evaltrace(receiver.url);
if (!subject) throw new Error(`run with BENCH_BUILDS="burst=${entry}" to measure another build`);
const ROUNDS = 12;
const CALLS = 20_000;
const before = process.cpuUsage();
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < CALLS; i++) subject.sync(i, 1);
  await subject.flush();
}
const used = process.cpuUsage(before);
console.log(JSON.stringify({ build: entry ? resolve(entry) : "dist/", cpuMsPer1000Spans: +((used.user + used.system) / 1000 / ((ROUNDS * CALLS) / 1000)).toFixed(2) }));
process.exit(0);
