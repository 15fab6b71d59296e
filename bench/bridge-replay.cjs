// A diagnostic of the bridge benchmark (not in `npm run bench`): the span processor's own cost,
// without openai-node and HTTP in between. Captures the two spans of one turn of
// bench/bridge-child.cjs (OpenInference's OpenAI instrumentation on real openai calls to the
// fake server, in-process here), then replays them, with the same names, kinds and attributes,
// through a tracer with the subject's processor: WARM spans, then SPANS spans measured (process
// CPU until the flush returned, everything at the receiver). Few spans show the processor as
// an app with a few calls a second runs it, mostly unoptimized by the JIT; many show it hot.
//   node bench/bridge-replay.cjs <otlp|evaltrace|none> [warm spans=300] [measured spans=500]
// BRIDGE_DIST=<a copy of dist/ inside the project> replays through another build (before/after).
"use strict";
const { context } = require("@opentelemetry/api");
const { AsyncLocalStorageContextManager } = require("@opentelemetry/context-async-hooks");
const { registerInstrumentations } = require("@opentelemetry/instrumentation");
const { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");
const { join, resolve } = require("node:path");
const { pathToFileURL } = require("node:url");

const [subject = "evaltrace", warmArg = "300", spansArg = "500"] = process.argv.slice(2);
const dist = process.env.BRIDGE_DIST ? resolve(process.env.BRIDGE_DIST) : join(__dirname, "..", "dist");

/** The spans of one turn, as the instrumentation records them: [{ name, kind, attributes }]. */
async function capture() {
  const { startFakeOpenAI } = require(join(dist, "fakes.cjs"));
  const { ANSWER, turnOf } = require("./bridge-turn.cjs");
  const fake = await startFakeOpenAI({ reply: () => ANSWER });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const instrumentation = new OpenAIInstrumentation();
  registerInstrumentations({ instrumentations: [instrumentation], tracerProvider: provider });
  const OpenAI = require("openai");
  await turnOf(new OpenAI({ apiKey: "sk-bench", baseURL: fake.url, maxRetries: 0 }))("q-1");
  instrumentation.disable();
  await fake.close();
  return exporter.getFinishedSpans().map((s) => ({ name: s.name, kind: s.kind, attributes: { ...s.attributes }, scope: s.instrumentationScope }));
}

async function main() {
  const turn = await capture();
  const { startReceiver } = await import(pathToFileURL(join(__dirname, "common.mjs")).href);
  const receiver = await startReceiver();
  const base = `${receiver.url}/s/replay`;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  let spanProcessors = [];
  let flush = async () => {};
  if (subject === "otlp") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
    spanProcessors = [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces`, concurrencyLimit: 1000 }), { maxQueueSize: 1_000_000 })];
  } else if (subject === "evaltrace") {
    const sdk = require(join(dist, "index.cjs"));
    sdk.configure({ apiKey: "svc_local_proj_bench", baseUrl: base, registerExitHooks: false, batch: { maxQueuedTraces: 1_000_000 } });
    spanProcessors = [new sdk.EvaltraceSpanProcessor()];
    flush = async () => {
      const r = await sdk.flush();
      if (!r.ok) throw new Error(`evaltrace flush: ${JSON.stringify(r).slice(0, 200)}`);
    };
  } else if (subject !== "none") throw new Error(`unknown subject ${subject}: otlp, evaltrace or none`);
  const provider = new BasicTracerProvider({ spanProcessors });
  if (subject === "otlp") flush = () => provider.forceFlush();
  const tracer = provider.getTracer(turn[0].scope.name, turn[0].scope.version);
  const cpuNs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) * 1000;
  };
  /** `n` spans, 20 turns between turns of the loop, then the flush. */
  const replay = async (n) => {
    for (let i = 0; i < n; ) {
      for (let j = 0; j < 20 && i < n; j++) {
        for (const s of turn) {
          if (i++ >= n) break;
          tracer.startSpan(s.name, { kind: s.kind, attributes: s.attributes }).end();
        }
      }
      await new Promise((r) => setImmediate(r));
    }
    await flush();
  };
  const warm = Number(warmArg);
  const spans = Number(spansArg);
  await replay(warm);
  const cpu0 = cpuNs();
  await replay(spans);
  const cpu = cpuNs() - cpu0;
  const got = await (await fetch(`${base}/_stats`)).json();
  await receiver.stop();
  const delivered = subject === "none" ? "-" : `${got.spans}/${warm + spans}`;
  console.log(`${subject}: ${(cpu / 1000 / spans).toFixed(1)} µs/span over ${spans} spans after ${warm} warm-up spans (delivered ${delivered})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
