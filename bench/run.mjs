// npm run bench: each benchmark in a process of its own (so one's heap cannot skew the other's
// memory and GC figures); prints their tables and writes bench/results.json (one section run
// alone replaces only that section of it).
//   node bench/run.mjs [peers|throughput|bridge|serverless|overhead|profile|gc|late|startup|spool|wrapped|all] [--quick] [--profile]
// --quick: fewer rounds and spans (a minute or two); --profile: a CPU profile of evaltrace's
// workload C, summarized as its top self-time functions.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const positional = args.filter((a) => !a.startsWith("--") || a === "--one");
const [which = "all", only] = positional[0] === "--one" ? ["--one", positional[1]] : positional;

if (which === "--one") {
  // Child mode: run one benchmark, write its result to the file named in BENCH_OUT.
  const mod = await import(`./${{ profile: "peers", late: "late-turns", wrapped: "wrapped-openai" }[only] ?? only}.mjs`);
  const result = await mod[only]();
  writeFileSync(process.env.BENCH_OUT, JSON.stringify(result));
  process.exit(0);
}

/** Every section, in the order `all` runs them; `all` leaves out the diagnostic ones. */
const SECTIONS = [
  ["peers", "Side by side: raw OpenTelemetry, evaltrace and the peers (workloads A, B, C)"],
  ["throughput", "End to end through the real exporter; 1,000,000 spans with memory bounded by the queue"],
  ["bridge", "Bridge: OpenInference's OpenAI instrumentation on real openai calls, through EvaltraceSpanProcessor, the OTLP exporter, Langfuse's and Arize's processors"],
  ["serverless", "Serverless: cold start of a handler (new process, one openai call, the trace delivered), bare, evaltrace and Langfuse"],
  ["overhead", "Per-span overhead against raw OTel with a discarding exporter"],
  ["profile", "Profile of evaltrace (workload C)"],
  ["gc", "Garbage collection per subject (workloads B and C)"],
  ["late", "Where workload C's late turns come from"],
  ["startup", "Start-up: what evaltrace adds to a fresh process (empty script, import, an app under --import evaltrace/auto)"],
  ["spool", "The disk spool: its cost while the service is up (configured, untouched) and while it is down (spooling)"],
  ["wrapped", "Per call of a wrapped openai client (its span, the SDK's class hooks, the net) against a raw client, before and after the classes are hooked"],
];
const IN_ALL = new Set(["peers", "throughput", "bridge", "serverless", "startup"]);
if (which !== "all" && !SECTIONS.some(([name]) => name === which)) {
  console.error(`unknown section "${which}": one of ${SECTIONS.map(([name]) => name).join(", ")}, or all`);
  process.exit(2);
}

// Every section measures the built package: built first if it never was (a fresh clone; `npm run
// bench` always builds, `node bench/run.mjs <section>` measures packages/*/dist as it is).
const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(join(root, "packages", "evaltrace", "dist", "index.js"))) {
  execFileSync(process.execPath, [join(root, "node_modules", "tsup", "dist", "cli-default.js"), "--silent"], { cwd: root, stdio: "inherit" });
}

const started = performance.now();
const results = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, command: `node bench/run.mjs ${args.join(" ")}`.trim() };
const dir = mkdtempSync(join(os.tmpdir(), "evaltrace-bench-"));
const env = { ...process.env, ...(quick ? { BENCH_QUICK: "1", BENCH_BIG_SPANS: "200000", BENCH_SPANS: "40000" } : {}) };
for (const [name, title] of SECTIONS) {
  if (which === "all" ? !IN_ALL.has(name) : which !== name) continue;
  console.log(`\n== ${title} ==`);
  const out = join(dir, `${name}.json`);
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--one", name, ...args.filter((a) => a === "--profile")], { stdio: "inherit", env: { ...env, BENCH_OUT: out } });
  results[name] = JSON.parse(readFileSync(out, "utf8"));
}
results.seconds = Math.round((performance.now() - started) / 1000);
printTargets(results);
// One section alone goes into the results of the last full run, beside its other sections,
// with its own date and command; `all` starts the file over.
const file = new URL("./results.json", import.meta.url);
const written = which === "all" ? results : { ...previousResults(), [which]: { ...results[which], run: { ...results, [which]: undefined } } };
writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
console.log(`\n${which === "all" ? "written to" : `section "${which}" written into`} bench/results.json (${results.seconds} s)`);

/** The results file as the last run left it ({} if there is none, or it does not parse). */
function previousResults() {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}

/**
 * The targets of issue 34 this run measured, each met or not; for one not met, where
 * docs/performance.md shows the profile of the rest and what was tried.
 */
function printTargets(results) {
  const found = [
    [results.startup?.target, "Start-up"],
    [results.peers?.targets?.cpu, "CPU per span (workloads A, B, C)"],
    [results.peers?.targets?.c, "CPU per span (workloads A, B, C)"],
    [results.bridge?.target, "Bridge: a real instrumentation through EvaltraceSpanProcessor"],
    [results.serverless?.target, "Serverless: cold start of a handler"],
  ].filter(([target]) => target);
  if (found.length === 0) return;
  console.log("\n== Targets (issue 34) ==");
  for (const [target, section] of found) {
    console.log(target.text);
    if (!target.met) console.log(`  where the rest is, and what was tried: docs/performance.md, section "${section}"`);
  }
}