// The bridge: a real instrumentation's spans through evaltrace's EvaltraceSpanProcessor. The app
// (bench/bridge-child.cjs, CommonJS) makes real openai-node calls to the fake OpenAI server (a
// process of its own), instrumented by OpenInference's OpenAI instrumentation with content
// captured; a turn is two chat calls (a tool call asked for, then the answer with its result).
// Subjects, on the same instrumentation and calls: no span processor (what the instrumentation
// and the calls cost alone), a BatchSpanProcessor with the OTLP/HTTP JSON exporter (the
// baseline), EvaltraceSpanProcessor (mapped by its OpenInference convention, delivered as the
// service's traces), Langfuse's LangfuseSpanProcessor and Arize's register() (@arizeai/phoenix-otel:
// OpenInference's batch processor and the OTLP/HTTP protobuf exporter). All deliver to a receiver
// in another process, which counts what each got: a subject that drops spans is flagged, not ranked.
// Per span: CPU time (user + system) of the app's process from the first call of the measured
// turns until its flush returned, everything delivered: openai-node, the instrumentation, the
// processor, mapping, serializing and sending. "over no processor" subtracts the no-processor
// subject's median: the processor's and exporter's own cost. Each run of each subject is a fresh
// process (warmed up first); runs interleave the subjects; median of the runs, with their spread.
// BENCH_BUILDS="name=path/to/index.js,..." adds builds of evaltrace (subjects/evaltrace@name).
// The processor's own cost, without the calls: bench/bridge-replay.cjs.
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { machineLoad, median, startFakeOpenAIProcess, startReceiver, table } from "./common.mjs";
import { ensurePeers } from "./peers.mjs";
import { builds } from "./subjects.mjs";

const quick = process.env.BENCH_QUICK === "1";
const RUNS = Number(process.env.BENCH_BRIDGE_RUNS ?? (quick ? 3 : 5));
const TURNS = Number(process.env.BENCH_BRIDGE_TURNS ?? (quick ? 250 : 500));
const WARM_TURNS = Number(process.env.BENCH_BRIDGE_WARM_TURNS ?? (quick ? 150 : 250));
/** Spans in one turn (two chat calls). */
const SPANS_PER_TURN = 2;
const DEADLINE_MS = Number(process.env.BENCH_FLUSH_DEADLINE_MS ?? 15_000);

const NONE = "no processor";
const FLOOR = "OTLP/HTTP + BSP";
/** Subjects a target ranks evaltrace against (ahead of each). */
const PEERS = ["Langfuse processor", "Arize register()"];
const child = fileURLToPath(new URL("./bridge-child.cjs", import.meta.url));
const dist = fileURLToPath(new URL("../packages/evaltrace/dist/index.cjs", import.meta.url));

/** Subject name → BRIDGE_SUBJECT of its process. The working tree's build only if there is one. */
function subjectList() {
  const list = { [NONE]: "none", [FLOOR]: "otlp" };
  if (existsSync(dist)) list.evaltrace = dist;
  else console.log("(no dist/index.cjs: the working tree's build is not measured, only BENCH_BUILDS)");
  for (const [name, file] of Object.entries(builds)) list[`evaltrace@${name}`] = resolve(file);
  list[PEERS[0]] = "langfuse";
  // @arizeai/phoenix-otel lives in bench/peers (installed on demand).
  if (ensurePeers("@arizeai/phoenix-otel")) list[PEERS[1]] = "phoenix";
  return list;
}

/** One run of a subject in a fresh process: resolves with its answer ({ ok, ... }). */
function runOnce(subject, url, fakeUrl) {
  return new Promise((done) => {
    const proc = fork(child, [], {
      env: {
        ...process.env,
        BRIDGE_SUBJECT: subject,
        BRIDGE_URL: url,
        BRIDGE_FAKE_URL: fakeUrl,
        BRIDGE_TURNS: String(TURNS),
        BRIDGE_WARM_TURNS: String(WARM_TURNS),
        BRIDGE_DEADLINE_MS: String(DEADLINE_MS),
        // Queues large enough that no batch processor drops a span (Langfuse's and Arize's build theirs from it).
        OTEL_BSP_MAX_QUEUE_SIZE: "1000000",
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
  const fake = await startFakeOpenAIProcess();
  const loadBefore = machineLoad();
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  const flags = {};
  const flag = (n, why) => (flags[n] ??= why);
  for (let run = 0; run < RUNS; run++) {
    // Rotated each run, so that no subject always goes first (or right after the same one).
    const order = names.map((_, i) => names[(i + run) % names.length]);
    for (const n of order) {
      // A flagged subject is not ranked: not worth more runs (one that drops spans waits out its deadline in each).
      if (flags[n]) continue;
      const r = await runOnce(list[n], `${receiver.url}/s/${encodeURIComponent(`${n}#${run}`)}`, fake.url);
      process.stdout.write(".");
      if (!r.ok) {
        flag(n, `failed: ${String(r.error).split("\n")[0].slice(0, 300)}`);
        continue;
      }
      runs[n].push({ ...r, run });
      if (r.flushed !== "ok") flag(n, `run ${run}: flush ${r.flushed}`);
      if (r.uncounted > 0) flag(n, `run ${run}: ${r.uncounted} requests in a format the receiver does not count`);
      if (r.delivered !== null && (r.delivered < r.spans || r.warmDelivered < r.warmExpected)) {
        flag(n, `run ${run}: delivered ${r.delivered} of ${r.spans} spans (warm-up: ${r.warmDelivered} of ${r.warmExpected})`);
      }
    }
  }
  console.log("");
  const loadAfter = machineLoad();
  await receiver.stop();
  await fake.stop();

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
  const out = {
    workload: "openai 6 chat.completions (tool call, then answer) instrumented by @arizeai/openinference-instrumentation-openai, content captured",
    turns: TURNS,
    spansPerTurn: SPANS_PER_TURN,
    warmTurns: WARM_TURNS,
    runs: RUNS,
    load: { before: loadBefore, after: loadAfter },
    subjects: {},
    flagged: flags,
  };
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
      "spans/s": runs[n].length ? String(median(runs[n].map((r) => r.spansPerSecond))) : "-",
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
    `(${TURNS} turns of ${SPANS_PER_TURN} openai chat calls (a tool call, then the answer) per run, ${10} turns at once, after ${WARM_TURNS} warm-up turns; one span per call, by OpenInference's instrumentation, messages captured;` +
      ` CPU time of the app's process per span until its flush returned with everything delivered to a receiver process (the fake OpenAI server is a third process); median of ${RUNS} runs, each in a fresh process, and their min-max;` +
      ` "x OTLP per run": each run's ratio to the OTLP baseline's run of the same round; in-call: the part spent while making the calls;` +
      ` load average ${loadBefore.load1} before, ${loadAfter.load1} after, ${loadAfter.cpus} cores.)`,
  );
  for (const [n, why] of Object.entries(flags)) console.log(`(!) ${n}: ${why} — flagged, not ranked`);
  out.target = bridgeTarget(out);
  console.log(out.target.text);
  return out;
}

/** Target 4: evaltrace's CPU per span at most 1.2x OTLP's, and below Langfuse's and Arize's (each of them ranked). */
function bridgeTarget(out) {
  const e = out.subjects.evaltrace;
  if (!e || e.flagged) return { met: false, text: `target 4 (bridge): not measured${e?.flagged ? ` (evaltrace flagged: ${e.flagged})` : ""}` };
  const parts = [];
  let met = e.ratioToOtlp !== null && e.ratioToOtlp <= 1.2;
  parts.push(`${e.ratioToOtlp?.toFixed(2) ?? "-"}x OTLP (at most 1.2)`);
  for (const p of PEERS) {
    const s = out.subjects[p];
    if (!s || s.flagged) {
      parts.push(`${p} not ranked${s?.flagged ? ` (${s.flagged})` : ""}`);
      continue;
    }
    const ahead = e.cpuNsPerSpan.median < s.cpuNsPerSpan.median;
    met &&= ahead;
    parts.push(`${ahead ? "ahead of" : "behind"} ${p} (${(e.cpuNsPerSpan.median / 1000).toFixed(1)} vs ${(s.cpuNsPerSpan.median / 1000).toFixed(1)} µs/span)`);
  }
  return { met, text: `target 4 (bridge): ${met ? "met" : "NOT met"}: ${parts.join("; ")}` };
}
