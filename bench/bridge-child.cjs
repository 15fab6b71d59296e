// One subject of the bridge benchmark (bench/bridge.mjs) in a fresh CommonJS process: an app
// making real openai-node calls (openai 6) to the fake OpenAI server (another process),
// instrumented by OpenInference's OpenAI instrumentation (@arizeai/openinference-instrumentation-openai:
// messages, tools and answers captured as span attributes, its default), on an OpenTelemetry
// tracer provider with the subject's span processor, delivering to its prefix on the receiver.
// A turn is two calls: the model asks for a tool (get_weather), then answers with its result.
// Warms up, then times (process CPU, user + system) TURNS turns and the flush that delivers
// them; answers over IPC with the figures and what the receiver counted.
//   BRIDGE_SUBJECT: "none"     — a provider with no span processor (what the instrumentation costs alone);
//                   "otlp"     — BatchSpanProcessor + OTLP/HTTP JSON exporter (the baseline);
//                   "langfuse" — Langfuse's LangfuseSpanProcessor (@langfuse/otel), its defaults;
//                   "phoenix"  — Arize's register() (@arizeai/phoenix-otel): its own processor and exporter;
//                   the path of an evaltrace build (.cjs required, else imported) — its EvaltraceSpanProcessor.
"use strict";
const { context, trace } = require("@opentelemetry/api");
const { AsyncLocalStorageContextManager } = require("@opentelemetry/context-async-hooks");
const { registerInstrumentations } = require("@opentelemetry/instrumentation");
const { BasicTracerProvider, BatchSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");
const { pathToFileURL } = require("node:url");
const { SPANS_PER_TURN, turnOf } = require("./bridge-turn.cjs");

const subject = process.env.BRIDGE_SUBJECT;
const base = process.env.BRIDGE_URL;
const FAKE = process.env.BRIDGE_FAKE_URL;
const TURNS = Number(process.env.BRIDGE_TURNS);
const WARM_TURNS = Number(process.env.BRIDGE_WARM_TURNS);
const WAVE = Number(process.env.BRIDGE_WAVE ?? 10);
const DEADLINE_MS = Number(process.env.BRIDGE_DEADLINE_MS ?? 15_000);
/** Spans a BatchSpanProcessor may hold (OTEL_BSP_MAX_QUEUE_SIZE, set by bridge.mjs for every subject): nothing is dropped. */
const OTEL_QUEUE = Number(process.env.OTEL_BSP_MAX_QUEUE_SIZE ?? 1_000_000);

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The app's OTel setup with the subject's processor and the instrumentation; resolves with { flush, delivers }. */
async function setUp() {
  const instrumentation = new OpenAIInstrumentation();
  if (subject === "phoenix") {
    // Arize's documented setup: register() makes the provider (NodeTracerProvider), its processor
    // (OpenInference's batch processor, loaded lazily) and its exporter (OTLP/HTTP protobuf), and
    // registers the instrumentations.
    // From bench/peers (bench/bridge.mjs installs it there before the run).
    const { register } = require("node:module").createRequire(require.resolve("./peers/package.json"))("@arizeai/phoenix-otel");
    const provider = register({ projectName: "bench", url: base, apiKey: "phx_bench", batch: true, global: true, instrumentations: [instrumentation] });
    return { flush: () => provider.forceFlush(), delivers: true };
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  let spanProcessors = [];
  let flush = async () => {};
  if (subject === "otlp") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
    const exporter = new OTLPTraceExporter({ url: `${base}/v1/traces`, concurrencyLimit: Math.ceil(OTEL_QUEUE / 512) });
    spanProcessors = [new BatchSpanProcessor(exporter)];
  } else if (subject === "langfuse") {
    // Its default filter (isDefaultExportSpan) keeps gen_ai.* spans and known scopes, which leaves
    // out every OpenInference span (scope @arizeai/openinference-instrumentation-openai, no
    // gen_ai.* attribute): nothing would be delivered. Widened to them, as its docs tell to.
    const { isDefaultExportSpan, LangfuseSpanProcessor } = require("@langfuse/otel");
    const shouldExportSpan = ({ otelSpan }) => isDefaultExportSpan(otelSpan) || otelSpan.instrumentationScope.name.startsWith("@arizeai/openinference");
    spanProcessors = [new LangfuseSpanProcessor({ publicKey: "pk-lf-bench", secretKey: "sk-lf-bench", baseUrl: base, mediaUploadEnabled: false, shouldExportSpan })];
  } else if (subject !== "none") {
    const sdk = subject.endsWith(".cjs") ? require(subject) : await import(pathToFileURL(subject).href);
    if (typeof sdk.EvaltraceSpanProcessor !== "function") throw new Error(`${subject} exports no EvaltraceSpanProcessor`);
    sdk.configure({ apiKey: "svc_local_proj_bench", baseUrl: base, registerExitHooks: false, batch: { maxQueuedTraces: 1_000_000 } });
    spanProcessors = [new sdk.EvaltraceSpanProcessor()];
    flush = async () => {
      const r = await sdk.flush();
      if (!r.ok) throw new Error(`evaltrace flush: ${JSON.stringify(r).slice(0, 200)}`);
    };
  }
  const provider = new BasicTracerProvider({ spanProcessors });
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({ instrumentations: [instrumentation], tracerProvider: provider });
  if (subject === "otlp" || subject === "langfuse") flush = () => provider.forceFlush();
  return { flush, delivers: subject !== "none" };
}

/** What the receiver counted at the subject's prefix. */
async function delivered() {
  const res = await fetch(`${base}/_stats`);
  return res.json();
}

/** Turns in waves of WAVE started together, the loop turning between waves (a server's traffic). */
async function produce(turn, turns, tag) {
  for (let i = 0; i < turns; i += WAVE) {
    const wave = [];
    for (let j = 0; j < WAVE && i + j < turns; j++) wave.push(turn(`${tag}-${i + j}`));
    await Promise.all(wave);
    await tick();
  }
}

/** Flushes, given up after `ms`: resolves "ok", "late", or the error's text. */
async function flushWithin(flush, ms) {
  let timer;
  const late = new Promise((r) => (timer = setTimeout(() => r("late"), ms)));
  const r = await Promise.race([flush().then(() => "ok", (err) => `failed: ${String(err?.message ?? err).slice(0, 200)}`), late]);
  clearTimeout(timer);
  return r;
}

/** Waits until the receiver has `expected` spans or `ms` passed; returns its counts. */
async function awaitDelivery(expected, ms) {
  const until = performance.now() + ms;
  for (;;) {
    const got = await delivered();
    if (got.spans >= expected || performance.now() > until) return got;
    await sleep(10);
  }
}

async function main() {
  const { flush, delivers } = await setUp();
  // Required after the instrumentation is registered, as a CommonJS app does (require-in-the-middle patches it).
  const OpenAI = require("openai");
  const client = new OpenAI({ apiKey: "sk-bench", baseURL: FAKE, maxRetries: 0 });
  const turn = turnOf(client);

  // Warm up (JIT, the connections), everything delivered, then measure from a collected heap.
  await produce(turn, WARM_TURNS, "warm");
  const warmFlush = await flushWithin(flush, DEADLINE_MS);
  const warmExpected = WARM_TURNS * SPANS_PER_TURN;
  const before = delivers ? await awaitDelivery(warmExpected, warmFlush === "ok" ? 2000 : 0) : { spans: 0, bytes: 0 };
  globalThis.gc?.();
  await sleep(50);

  const t0 = performance.now();
  const window0 = process.hrtime.bigint() / 1000n;
  const cpu0 = cpuNs();
  await produce(turn, TURNS, "q");
  const cpuProduced = cpuNs();
  const flushed = await flushWithin(flush, DEADLINE_MS);
  const cpu = cpuNs() - cpu0;
  const window1 = process.hrtime.bigint() / 1000n;
  const seconds = (performance.now() - t0) / 1000;
  const spans = TURNS * SPANS_PER_TURN;
  // A flush resolves once the receiver answered, so it has counted them; waited for a while more
  // only if not (a subject that drops spans shows here).
  const got = delivers ? await awaitDelivery(before.spans + spans, flushed === "ok" ? 2000 : 0) : { spans: 0, bytes: 0 };
  return {
    spans,
    delivered: delivers ? got.spans - before.spans : null,
    warmDelivered: delivers ? before.spans : null,
    warmExpected,
    flushed: warmFlush === "ok" ? flushed : `warm-up flush: ${warmFlush}; ${flushed}`,
    cpuNsPerSpan: Math.round(cpu / spans),
    inCallNsPerSpan: Math.round((cpuProduced - cpu0) / spans),
    spansPerSecond: Math.round(spans / seconds),
    bytesPerSpan: delivers && got.spans > before.spans ? Math.round((got.bytes - before.bytes) / (got.spans - before.spans)) : null,
    // The measured window on the monotonic clock in µs (that of a --cpu-prof profile's timestamps), to profile just it.
    window: [Number(window0), Number(window1)],
    uncounted: delivers ? (got.uncounted ?? 0) - (before.uncounted ?? 0) : 0,
  };
}

main().then(
  (r) => process.send({ ok: true, ...r }, () => process.exit(0)),
  (err) => process.send({ ok: false, error: String(err?.stack ?? err) }, () => process.exit(1)),
);
