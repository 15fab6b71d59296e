// Per-call cost of wrapOpenAI: CPU time of the app's process per openai call (chat.completions,
// plain and streamed read to its end) against the fake OpenAI server in another process, for a
// raw client before evaltrace touched the SDK's classes, a raw client after (the class hooks and
// the net, deciding per call that the call is not traced), and a wrapped client (its llm span,
// the class hooks, the net seeing the call owned), interleaved round by round in one process:
// the ratios are of one run. Spans go to a receiver in another process, delivered after each
// round (the export's CPU is counted apart).
// BENCH_BUILDS="base=path/to/dist/index.js" measures another build the same way, in a process of
// its own (the SDK's classes can be hooked by one build only): its openai entry is the openai.js
// beside that index.js.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { machineLoad, median, startFakeOpenAIProcess, startReceiver, table } from "./common.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? (process.env.BENCH_QUICK ? 200 : 1000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const here = fileURLToPath(import.meta.url);

/** Runs every build in a child of its own (this tree's dist first); each row's ratios come from its own run. */
export async function wrapped() {
  const builds = [["this tree", "evaltrace"], ...(process.env.BENCH_BUILDS ?? "").split(",").filter(Boolean).map((e) => e.split("="))];
  const rows = [];
  for (const [name, entry] of builds) {
    const out = join(os.tmpdir(), `evaltrace-bench-wrapped-${process.pid}-${rows.length}.json`);
    const from = entry === "evaltrace" ? entry : pathToFileURL(resolve(entry)).href;
    execFileSync(process.execPath, [here, from], { stdio: "inherit", env: { ...process.env, BENCH_WRAPPED_OUT: out } });
    for (const r of JSON.parse(readFileSync(out, "utf8"))) rows.push({ build: name, ...r });
  }
  table(rows);
  const load = machineLoad();
  console.log(`(${CALLS} calls per round, ${ROUNDS} rounds, medians; load ${load.load1} on ${load.cpus} cores)`);
  return { calls: CALLS, rounds: ROUNDS, load, rows };
}

/** One build, in this process: `from` is its index entry (its openai entry beside it). */
async function measure(from) {
  const fake = await startFakeOpenAIProcess();
  const receiver = await startReceiver();
  const { configure, flush, observe, shutdown } = await import(from);
  const openaiEntry = from === "evaltrace" ? "evaltrace/openai" : pathToFileURL(join(dirname(fileURLToPath(from)), "openai.js")).href;
  const { default: OpenAI } = await import("openai");
  configure({ apiKey: "svc_local_proj_bench", baseUrl: receiver.url, registerExitHooks: false, batch: { maxQueuedTraces: 100_000, flushIntervalMillis: 3_600_000 } });
  const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "When do orders ship?" }] };
  const make = () => new OpenAI({ apiKey: "sk-bench", baseURL: fake.url, maxRetries: 0 });
  const plain = async (client) => {
    await client.chat.completions.create(body);
  };
  const streamed = async (client) => {
    for await (const _ of await client.chat.completions.create({ ...body, stream: true }));
  };
  // CPU microseconds per call of `kind` on `client`, the calls inside one agent span; the export after it apart.
  const run = async (client, kind) => {
    const before = process.cpuUsage();
    await observe({ type: "agent", name: "bench" }, async () => {
      for (let i = 0; i < CALLS; i++) await kind(client);
    })();
    const used = process.cpuUsage(before);
    const exportBefore = process.cpuUsage();
    const r = await flush();
    if (!r.ok) throw new Error(`flush: ${JSON.stringify(r).slice(0, 200)}`);
    const exported = process.cpuUsage(exportBefore);
    return { call: (used.user + used.system) / CALLS, export: (exported.user + exported.system) / CALLS };
  };
  const kinds = { "chat.completions.create": plain, "create, streamed, read to its end": streamed };
  const samples = {};
  const add = (key, v) => (samples[key] ??= []).push(v);
  // Warm up, then the raw client before any wrapOpenAI (the SDK's classes as the package made them).
  const untouched = make();
  for (const kind of Object.values(kinds)) for (let i = 0; i < 300; i++) await kind(untouched);
  for (let round = 0; round < ROUNDS; round++) for (const [k, kind] of Object.entries(kinds)) add(`${k}|raw, classes untouched`, await run(untouched, kind));
  const { wrapOpenAI } = await import(openaiEntry);
  const wrapped = wrapOpenAI(make());
  const raw = make();
  for (const kind of Object.values(kinds)) for (let i = 0; i < 300; i++) await kind(wrapped);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, kind] of Object.entries(kinds)) {
      add(`${k}|raw, classes hooked`, await run(raw, kind));
      add(`${k}|wrapped`, await run(wrapped, kind));
    }
  }
  const rows = [];
  for (const k of Object.keys(kinds)) {
    // The ratio is to the raw client measured in the same rounds, interleaved (the untouched
    // classes can only be measured before, on a less warmed-up process: shown, not divided by).
    const base = median(samples[`${k}|raw, classes hooked`].map((s) => s.call));
    for (const client of ["raw, classes untouched", "raw, classes hooked", "wrapped"]) {
      const s = samples[`${k}|${client}`];
      const call = median(s.map((x) => x.call));
      const ratio = client === "raw, classes untouched" ? "-" : (call / base).toFixed(2);
      rows.push({ call: k, client, "CPU µs/call": Math.round(call), "× raw (same rounds)": ratio, "export CPU µs/call": Math.round(median(s.map((x) => x.export))) });
    }
  }
  await shutdown(0);
  await receiver.stop();
  await fake.stop();
  return rows;
}

if (process.argv[1] === here && process.argv[2]) {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(process.env.BENCH_WRAPPED_OUT, JSON.stringify(await measure(process.argv[2])));
  process.exit(0);
}
