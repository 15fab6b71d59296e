// npm run bench: each benchmark in a process of its own (so one's heap cannot skew the other's
// memory and GC figures); prints their tables and writes bench/results.json.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const [, , which = "all", only] = process.argv;

if (which === "--one") {
  // Child mode: run one benchmark, write its result to the file named in BENCH_OUT.
  const mod = await import(`./${only}.mjs`);
  const result = await mod[only]();
  writeFileSync(process.env.BENCH_OUT, JSON.stringify(result));
  process.exit(0);
}

const results = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model };
const dir = mkdtempSync(join(os.tmpdir(), "evaltrace-bench-"));
for (const [name, title] of [
  ["overhead", "Per-span overhead"],
  ["throughput", "End to end through the real exporter"],
]) {
  if (which !== "all" && which !== name) continue;
  console.log(`\n== ${title} ==`);
  const out = join(dir, `${name}.json`);
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--one", name], { stdio: "inherit", env: { ...process.env, BENCH_OUT: out } });
  results[name] = JSON.parse(readFileSync(out, "utf8"));
}
writeFileSync(new URL("./results.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
console.log("\nwritten to bench/results.json");
