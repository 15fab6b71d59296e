// npm run bench: the overhead and throughput benchmarks; prints tables, writes bench/results.json.
import { writeFileSync } from "node:fs";
import os from "node:os";
import { overhead } from "./overhead.mjs";
import { throughput } from "./throughput.mjs";

const which = process.argv[2] ?? "all";
const results = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model };
if (which === "all" || which === "overhead") {
  console.log("\n== Per-span overhead ==");
  results.overhead = await overhead();
}
if (which === "all" || which === "throughput") {
  console.log("\n== End to end through the real exporter ==");
  results.throughput = await throughput();
}
writeFileSync(new URL("./results.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
console.log("\nwritten to bench/results.json");
