// The bridge: spans of a real OpenTelemetry tracer, as GenAI instrumentations emit them (an agent
// turn of 4 spans with gen_ai.* attributes and captured messages: bench/bridge-workload.mjs),
// handed to evaltrace's EvaltraceSpanProcessor (mapped by its GenAI convention and delivered as
// the service's traces), against the same tracer and spans through a BatchSpanProcessor and the
// OTLP/HTTP JSON exporter. Both deliver to a receiver in another process, which counts what each
// subject got: a subject that drops spans is flagged, not ranked.
// Per span: CPU time (user + system) of the app's process from the first span of the measured
// traces until its flush returned, everything delivered: the tracer, the processor, mapping,
// serializing and sending. Each run of each subject is a fresh process (warmed up first); runs
// interleave the subjects; median of the runs, with their spread (min-max). "OTel, no
// processor" is the same tracer and app with no span processor: what every subject pays before
// its processor does anything, so "over no processor" is the processor's and exporter's own cost.
// BENCH_BUILDS="name=path/to/index.js,..." adds builds of evaltrace (subjects/evaltrace@name).
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GEN_AI_SPANS_PER_TRACE as SPANS_PER_TRACE } from "./bridge-workload.mjs";
import { median, startReceiver, table } from "./common.mjs";
import { builds } from "./subjects.mjs";

const quick = process.env.BENCH_QUICK === "1";
const RUNS = Number(process.env.BENCH_BRIDGE_RUNS ?? (quick ? 3 : 5));
const TRACES = Number(process.env.BENCH_BRIDGE_TRACES ?? (quick ? 3000 : 5000));
const WARM_TRACES = Number(process.env.BENCH_BRIDGE_WARM_TRACES ?? (quick ? 2000 : 3000));
const DEADLINE_MS = Number(process.env.BENCH_FLUSH_DEADLINE_MS ?? 15_000);

const NONE = "OTel, no processor";
const FLOOR = "OTel + OTLP/HTTP (BSP)";
const child = fileURLToPath(new URL("./bridge-child.mjs", import.meta.url));
const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/** Subject name → BRIDGE_SUBJECT of its process. The working tree's build only if there is one. */
function subjectList() {
  const list = { [NONE]: "none", [FLOOR]: "otlp" };
  if (existsSync(dist)) list.evaltrace = pathToFileURL(dist).href;
  else console.log("(no dist/index.js: the working tree's build is not measured, only BENCH_BUILDS)");
  for (const [name, file] of Object.entries(builds)) list[`evaltrace@${name}`] = pathToFileURL(resolve(file)).href;
  return list;
}

/** One run of a subject in a fresh process: resolves with its answer ({ ok, ... }). */
function runOnce(subject, url) {
  return new Promise((done) => {
    const proc = fork(child, [], {
      env: {
        ...process.env,
        BRIDGE_SUBJECT: subject,
        BRIDGE_URL: url,
        BRIDGE_TRACES: String(TRACES),
        BRIDGE_WARM_TRACES: String(WARM_TRACES),
        BRIDGE_DEADLINE_MS: String(DEADLINE_MS),
      },
      execArgv: ["--expose-gc"],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    let answer;
    proc.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)));
    proc.on("message", (m) => (answer = m));
    const killer = setTimeout(() => proc.kill(), 4 * DEADLINE_MS + 60_000);
    proc.on("exit", (code) => {
      clearTimeout(killer);
      done(answer ?? { ok: false, error: `exited with ${code} and no answer: ${stderr.trim()}` });
    });
  });
}

const fmtUs = (ns) => (Number.isFinite(ns) ? (ns / 1000).toFixed(2) : "-");

export async function bridge() {
  const list = subjectList();
  const names = Object.keys(list);
  const receiver = await startReceiver();
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  const flags = {};
  const flag = (n, why) => (flags[n] ??= why);
  for (let run = 0; run < RUNS; run++) {
    // Rotated each run, so that no subject always goes first (or right after the same one).
    const order = names.map((_, i) => names[(i + run) % names.length]);
    for (const n of order) {
      // A flagged subject is not ranked: not worth more runs (one that drops spans waits out its deadline in each).
      if (flags[n]) continue;
      const r = await runOnce(list[n], `${receiver.url}/s/${encodeURIComponent(`${n}#${run}`)}`);
      process.stdout.write(".");
      if (!r.ok) {
        flag(n, `failed: ${String(r.error).split("\n")[0].slice(0, 300)}`);
        continue;
      }
      runs[n].push({ ...r, run });
      if (r.flushed !== "ok") flag(n, `run ${run}: flush ${r.flushed}`);
      if (r.delivered !== null && (r.delivered < r.spans || r.warmDelivered < r.warmExpected)) {
        flag(n, `run ${run}: delivered ${r.delivered} of ${r.spans} spans (warm-up: ${r.warmDelivered} of ${r.warmExpected})`);
      }
    }
  }
  console.log("");
  await receiver.stop();

  const stat = (xs) => (xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : { median: Number.NaN, min: Number.NaN, max: Number.NaN });
  const cpu = (n) => stat(runs[n].map((r) => r.cpuNsPerSpan));
  const none = cpu(NONE).median;
  const floor = cpu(FLOOR).median;
  /** Each run's ratio to the baseline's run of the same round (a slow spell of the machine hits both). */
  const paired = (n) =>
    stat(
      runs[n].flatMap((r) => {
        const b = runs[FLOOR].find((x) => x.run === r.run);
        return b ? [r.cpuNsPerSpan / b.cpuNsPerSpan] : [];
      }),
    );
  const out = { traces: TRACES, spansPerTrace: SPANS_PER_TRACE, warmTraces: WARM_TRACES, runs: RUNS, subjects: {}, flagged: flags };
  const rows = [];
  for (const n of names) {
    const c = cpu(n);
    const p = paired(n);
    const own = c.median - none;
    const floorOwn = floor - none;
    const spansOut = runs[n].reduce((s, r) => s + r.spans, 0);
    const deliveredSum = runs[n].reduce((s, r) => s + (r.delivered ?? 0), 0);
    const sends = n !== NONE;
    // A flagged subject (or a flagged baseline) did not do the same job: its figures are shown, not ranked.
    const ranked = sends && n !== FLOOR && !flags[n] && !flags[FLOOR];
    const ratio = ranked && floor > 0 ? c.median / floor : null;
    const ownRatio = ranked && floorOwn > 0 ? own / floorOwn : null;
    rows.push({
      subject: flags[n] ? `${n} (!)` : n,
      "CPU µs/span": fmtUs(c.median),
      "spread µs": runs[n].length ? `${fmtUs(c.min)}-${fmtUs(c.max)}` : "-",
      "x OTLP": ratio === null ? "-" : ratio.toFixed(2),
      "x OTLP per run": ratio === null ? "-" : `${p.min.toFixed(2)}-${p.max.toFixed(2)}`,
      "over no processor µs": n === NONE ? "-" : fmtUs(own),
      "x OTLP (over no proc.)": ownRatio === null ? "-" : ownRatio.toFixed(2),
      "in-call µs": fmtUs(median(runs[n].map((r) => r.inCallNsPerSpan))),
      "bytes/span": sends && runs[n].every((r) => r.bytesPerSpan !== null) && runs[n].length ? String(median(runs[n].map((r) => r.bytesPerSpan))) : "-",
      delivered: sends ? `${deliveredSum}/${spansOut}` : "-",
    });
    out.subjects[n] = {
      cpuNsPerSpan: c,
      overNoProcessorNsPerSpan: n === NONE ? null : Math.round(own),
      ratioToOtlp: ratio === null ? null : Number(ratio.toFixed(3)),
      ratioToOtlpPerRun: ratio === null ? null : { median: Number(p.median.toFixed(3)), min: Number(p.min.toFixed(3)), max: Number(p.max.toFixed(3)) },
      ratioToOtlpOverNoProcessor: ownRatio === null ? null : Number(ownRatio.toFixed(3)),
      delivered: sends ? deliveredSum : null,
      spans: spansOut,
      runs: runs[n],
      flagged: flags[n] ?? null,
    };
  }
  table(rows);
  console.log(
    `(${TRACES} traces of ${SPANS_PER_TRACE} GenAI spans (agent, chat, execute_tool, chat; messages as JSON attributes) per run, in waves of 25, after ${WARM_TRACES} warm-up traces;` +
      ` CPU time of the app's process per span until its flush returned with everything delivered to a receiver process; median of ${RUNS} runs, each in a fresh process, and their min-max;` +
      ` "x OTLP per run": each run's ratio to the OTLP baseline's run of the same round; in-call: the part spent while producing the spans.)`,
  );
  for (const [n, why] of Object.entries(flags)) console.log(`(!) ${n}: ${why} — flagged, not ranked`);
  return out;
}
