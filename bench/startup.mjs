// Start-up (`node bench/run.mjs startup`, a minute or two): what evaltrace adds to a process's
// start. Every run is a fresh `node` process; the subjects are interleaved round by round (so a
// burst of load on the machine hits them all alike) after one warm-up round that is not counted.
// A run's time is from just before the parent spawns it to the end of the subject's top level
// (read from the child's clock, which is the parent's wall clock), and the CPU time the child
// used by then, every thread (less sensitive to the machine's load than wall time); its memory
// is the child's peak RSS at exit (process.resourceUsage().maxRSS). Figures are medians over the rounds with their
// spread (min–max); a cost is the median of the per-round differences against its baseline, run
// in the same round. The subjects (bench/startup/):
//   empty      an empty script, bare and under `--import evaltrace/auto`
//   import     `import "evaltrace"` (ESM) and `require("evaltrace")` (CommonJS), against empty;
//              and `import "@opentelemetry/api"` alone, the floor under it (the API it shares with the app);
//              and `import "evaltrace"` once the API is loaded, timed inside the process (issue 41)
//   app        an ESM app importing openai, @anthropic-ai/sdk, @langchain/openai,
//              @langchain/langgraph, ai and the MCP client, bare and under `--import evaltrace/auto`
// BENCH_STARTUP_FLOOR=1 adds the app under a no-op module hook, the floor under zero-code's ESM
// hooks: `module.registerHooks` where Node has it (22.15+), else `module.register`'s hooks thread.
// BENCH_BUILDS="base=.builds/base/index.js" adds each build's import and auto subjects (its
// directory's index.js, index.cjs and auto.js; keep a build inside the project, e.g. in .builds/,
// so that it resolves its dependencies). BENCH_STARTUP_RUNS sets the rounds (default 9, 5 quick).
import { spawnSync } from "node:child_process";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median, table } from "./common.mjs";
import { builds } from "./subjects.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const fixture = (name) => join(root, "bench", "startup", name);
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? (process.env.BENCH_QUICK ? 5 : 9));

/** The targets of issue 34, each a cost against its baseline. */
const TARGETS = { emptyAutoMs: 25, importMs: 25, appAutoRatio: 1.15, appAutoMB: 10, importAfterApiMs: 25 };

/** A preload that registers a resolve and a load hook that do nothing: in-thread where Node can, else on the hooks thread. */
const NOOP_HOOK = `data:text/javascript,${encodeURIComponent(
  'import * as m from "node:module";' +
    "if (typeof m.registerHooks === \"function\") m.registerHooks({ resolve: (s, c, n) => n(s, c), load: (u, c, n) => n(u, c) });" +
    'else m.register("data:text/javascript,export async function resolve(s,c,n){return n(s,c)} export async function load(u,c,n){return n(u,c)}");',
)}`;

/** Each build's subjects: its name ("" for the working tree's dist/ through the package name) and files. */
function buildsToRun() {
  const list = [{ name: "", auto: "evaltrace/auto", esm: "", cjs: "" }];
  for (const [name, file] of Object.entries(builds)) {
    const dir = dirname(resolve(root, file));
    list.push({ name, auto: pathToFileURL(join(dir, "auto.js")).href, esm: pathToFileURL(join(dir, "index.js")).href, cjs: join(dir, "index.cjs") });
  }
  return list;
}

/** The subjects: [label, node flags, script, entry override]. */
function subjectsOf(list) {
  const subjects = [
    ["empty", [], "empty.mjs", ""],
    ["app", [], "app.mjs", ""],
    // What `import "evaltrace"` cannot go below: the OpenTelemetry API it shares with the app
    // (its context, the global tracer provider), loaded by any SDK that joins OpenTelemetry's context.
    ["import @opentelemetry/api", [], "import.mjs", "@opentelemetry/api"],
  ];
  if (process.env.BENCH_STARTUP_FLOOR) subjects.push(["app, a no-op module hook", ["--import", NOOP_HOOK], "app.mjs", ""]);
  for (const b of list) {
    const at = b.name ? `@${b.name}` : "";
    subjects.push([`empty --import auto${at}`, ["--import", b.auto], "empty.mjs", ""]);
    subjects.push([`import ESM${at}`, [], "import.mjs", b.esm]);
    subjects.push([`import ESM after api${at}`, [], "import-after-api.mjs", b.esm]);
    subjects.push([`require CJS${at}`, [], "import.cjs", b.cjs]);
    subjects.push([`app --import auto${at}`, ["--import", b.auto], "app.mjs", ""]);
  }
  return subjects;
}

/** One fresh process of a subject: ms to the end of its top level, CPU ms used by then (every thread), and its peak RSS in MB. */
function runOnce([label, flags, script, entry]) {
  const env = {
    ...process.env,
    // A configured SDK, as in production (nothing is sent: no span is made).
    EVALTRACE_API_KEY: "svc_local_proj_bench",
    EVALTRACE_BASE_URL: "http://127.0.0.1:9",
    // Builds older than the EVALTRACE_ names read these.
    SERVICE_API_KEY: "svc_local_proj_bench",
    SERVICE_BASE_URL: "http://127.0.0.1:9",
    BENCH_STARTUP_ENTRY: entry,
    NODE_OPTIONS: "",
  };
  const started = performance.timeOrigin + performance.now();
  const run = spawnSync(process.execPath, [...flags, fixture(script)], { cwd: root, env, encoding: "utf8" });
  const line = run.stdout.trim().split("\n").pop();
  if (run.status !== 0 || !line?.startsWith("{")) throw new Error(`startup subject "${label}" failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  const { top, cpu, maxRSS, inProcess } = JSON.parse(line);
  return { ms: top - started, cpu, mb: maxRSS / 1024, inProcess };
}

const fmt = (x, digits = 0) => x.toFixed(digits);
const spread = (xs, digits = 0) => `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;

export async function startup() {
  const list = buildsToRun();
  const subjects = subjectsOf(list);
  const load = { before: os.loadavg().map((x) => +x.toFixed(2)) };
  const samples = Object.fromEntries(subjects.map(([label]) => [label, []]));
  for (const subject of subjects) runOnce(subject); // warm-up: file cache, not counted
  for (let round = 0; round < RUNS; round++) {
    // Interleaved, each round in a rotated order so that no subject always runs first.
    for (let i = 0; i < subjects.length; i++) {
      const subject = subjects[(i + round) % subjects.length];
      samples[subject[0]].push(runOnce(subject));
    }
  }
  load.after = os.loadavg().map((x) => +x.toFixed(2));

  const rows = subjects.map(([label]) => {
    const s = samples[label];
    const ms = s.map((r) => r.ms);
    const mb = s.map((r) => r.mb);
    const cpu = s.map((r) => r.cpu);
    return { subject: label, "ms (median)": fmt(median(ms)), "ms spread": spread(ms), "CPU ms": fmt(median(cpu)), "CPU spread": spread(cpu), "peak RSS MB": fmt(median(mb), 1), "MB spread": spread(mb, 1) };
  });
  console.log(`${RUNS} runs of each subject (fresh processes, interleaved), ${process.version}, ${os.cpus().length} CPUs; load average (1, 5, 15 min) ${load.before.join(" ")} before, ${load.after.join(" ")} after`);
  table(rows);

  /** Per-round differences of a subject against its baseline: their median and spread. */
  const diff = (label, base, key) => samples[label].map((r, i) => r[key] - samples[base][i][key]);
  const ratio = (label, base) => samples[label].map((r, i) => r.ms / samples[base][i].ms);
  const costs = [];
  const summary = {};
  const apiAlone = diff("import @opentelemetry/api", "empty", "ms");
  costs.push({ build: "-", cost: 'import "@opentelemetry/api" alone (ms)', median: `+${fmt(median(apiAlone))}`, spread: spread(apiAlone), target: "", met: "" });
  summary["@opentelemetry/api"] = { "import alone (ms)": figure(apiAlone) };
  const floor = samples["app, a no-op module hook"]?.map((r, i) => r.cpu / samples.app[i].cpu);
  if (floor) {
    costs.push({ build: "-", cost: "app under a no-op module hook, the floor (CPU × bare)", median: fmt(median(floor), 2), spread: spread(floor, 2), target: "", met: "" });
    summary["no-op module hook"] = { "app (CPU × bare)": figure(floor) };
  }
  for (const b of list) {
    const at = b.name ? `@${b.name}` : "";
    const build = b.name || "dist/";
    const entries = [
      ["empty script under --import auto (ms)", diff(`empty --import auto${at}`, "empty", "ms"), TARGETS.emptyAutoMs, "≤", 0],
      ["empty script under --import auto (CPU ms)", diff(`empty --import auto${at}`, "empty", "cpu"), undefined, "", 0],
      ["empty script under --import auto (MB)", diff(`empty --import auto${at}`, "empty", "mb"), undefined, "", 1],
      ['import "evaltrace" ESM (ms)', diff(`import ESM${at}`, "empty", "ms"), TARGETS.importMs, "≤", 0],
      ['import "evaltrace" ESM (CPU ms)', diff(`import ESM${at}`, "empty", "cpu"), undefined, "", 0],
      ['import "evaltrace" ESM, beyond @opentelemetry/api alone (ms)', diff(`import ESM${at}`, "import @opentelemetry/api", "ms"), undefined, "", 0],
      ['import "evaltrace" ESM once @opentelemetry/api is loaded, timed in-process (ms)', samples[`import ESM after api${at}`].map((r) => r.inProcess), TARGETS.importAfterApiMs, "≤", 1],
      ['require("evaltrace") CJS (ms)', diff(`require CJS${at}`, "empty", "ms"), TARGETS.importMs, "≤", 0],
      ["app under --import auto (× bare)", ratio(`app --import auto${at}`, "app"), TARGETS.appAutoRatio, "≤", 2],
      ["app under --import auto (CPU × bare)", samples[`app --import auto${at}`].map((r, i) => r.cpu / samples.app[i].cpu), undefined, "", 2],
      ["app under --import auto (MB)", diff(`app --import auto${at}`, "app", "mb"), TARGETS.appAutoMB, "≤", 1],
    ];
    summary[build] = {};
    for (const [what, xs, target, op, digits] of entries) {
      const m = median(xs);
      summary[build][what] = { ...figure(xs), target };
      costs.push({ build, cost: what, median: `${what.includes("×") || m < 0 ? "" : "+"}${fmt(m, digits)}`, spread: spread(xs, digits), target: target === undefined ? "" : `${op} ${target}`, met: target === undefined ? "" : m <= target ? "yes" : "NO" });
    }
  }
  console.log("\nCost against the baseline of the same round (median of the per-round differences, their spread):");
  table(costs);
  const target = startupTarget(summary["dist/"]);
  console.log(target.text);
  return { runs: RUNS, node: process.version, load, subjects: rows, costs: summary, target };
}

/** A cost's median and spread, as bench/results.json keeps them. */
function figure(xs) {
  return { median: +median(xs).toFixed(3), min: +Math.min(...xs).toFixed(3), max: +Math.max(...xs).toFixed(3) };
}

/** Target 1 (issue 34), of the working tree's build: each cost that has a bound, within it. */
function startupTarget(costs) {
  const bounded = Object.entries(costs).filter(([, c]) => c.target !== undefined);
  const missed = bounded.filter(([, c]) => c.median > c.target);
  const met = missed.length === 0;
  const parts = bounded.map(([what, c]) => `${what} ${c.median.toFixed(what.includes("×") ? 2 : 0)} (at most ${c.target})${c.median > c.target ? " NOT met" : ""}`);
  return { met, text: `target 1 (start-up, ${process.version}): ${met ? "met" : `NOT met (${missed.length} of ${bounded.length})`}: ${parts.join("; ")}` };
}
