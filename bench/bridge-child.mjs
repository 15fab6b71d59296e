// One subject of the bridge benchmark (bench/bridge.mjs) in a fresh process: a real OpenTelemetry
// tracer (BasicTracerProvider, AsyncLocalStorage context manager) emitting the spans a GenAI
// instrumentation emits, exported by the subject's span processor to its prefix on the receiver.
// Warms up, then times (process CPU, user + system) the production of TRACES traces and the
// flush that delivers them; answers over IPC with the figures and what the receiver counted.
//   BRIDGE_SUBJECT: "otlp"  — BatchSpanProcessor + OTLP/HTTP JSON exporter (the baseline);
//                   "none"  — no span processor (what the tracer and the app cost alone);
//                   a file URL of an evaltrace build — its EvaltraceSpanProcessor, configure() to the receiver.
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { GEN_AI_SPANS_PER_TRACE as SPANS_PER_TRACE, genAiTrace } from "./bridge-workload.mjs";

const subject = process.env.BRIDGE_SUBJECT;
const base = process.env.BRIDGE_URL;
const TRACES = Number(process.env.BRIDGE_TRACES);
const WARM_TRACES = Number(process.env.BRIDGE_WARM_TRACES);
const WAVE = Number(process.env.BRIDGE_WAVE ?? 25);
const DEADLINE_MS = Number(process.env.BRIDGE_DEADLINE_MS ?? 15_000);
/** Spans the BatchSpanProcessor may hold (and exports in flight at once at a flush, in batches of 512): nothing is dropped. */
const OTEL_QUEUE = 1_000_000;

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The app's OTel setup with the subject's processor; resolves with { tracer, flush, delivers }. */
async function setUp() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  if (subject === "none") {
    const provider = new BasicTracerProvider();
    return { tracer: provider.getTracer("bench-genai"), flush: async () => {}, delivers: false };
  }
  if (subject === "otlp") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    const exporter = new OTLPTraceExporter({ url: `${base}/v1/traces`, concurrencyLimit: Math.ceil(OTEL_QUEUE / 512) });
    const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: OTEL_QUEUE })] });
    return { tracer: provider.getTracer("bench-genai"), flush: () => provider.forceFlush(), delivers: true };
  }
  const { configure, EvaltraceSpanProcessor, flush } = await import(subject);
  if (typeof EvaltraceSpanProcessor !== "function") throw new Error(`${subject} exports no EvaltraceSpanProcessor`);
  configure({ apiKey: "svc_local_proj_bench", baseUrl: base, registerExitHooks: false, batch: { maxQueuedTraces: 1_000_000 } });
  const provider = new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] });
  return {
    tracer: provider.getTracer("bench-genai"),
    flush: async () => {
      const r = await flush();
      if (!r.ok) throw new Error(`evaltrace flush: ${JSON.stringify(r).slice(0, 200)}`);
    },
    delivers: true,
  };
}

/** What the receiver counted at the subject's prefix. */
async function delivered() {
  const res = await fetch(`${base}/_stats`);
  return res.json();
}

/** Traces in waves of WAVE started together, the loop turning between waves (a server's traffic). */
async function produce(run, traces, tag) {
  for (let i = 0; i < traces; i += WAVE) {
    const wave = [];
    for (let j = 0; j < WAVE && i + j < traces; j++) wave.push(run(`${tag}-${i + j}`));
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
  const { tracer, flush, delivers } = await setUp();
  const run = genAiTrace(tracer);

  // Warm up (JIT, the connection), everything delivered, then measure from a collected heap.
  await produce(run, WARM_TRACES, "warm");
  const warmFlush = await flushWithin(flush, DEADLINE_MS);
  const warmExpected = WARM_TRACES * SPANS_PER_TRACE;
  const before = delivers ? await awaitDelivery(warmExpected, DEADLINE_MS) : { spans: 0, bytes: 0 };
  globalThis.gc?.();
  await sleep(50);

  const t0 = performance.now();
  const cpu0 = cpuNs();
  await produce(run, TRACES, "q");
  const cpuProduced = cpuNs();
  const flushed = await flushWithin(flush, DEADLINE_MS);
  const cpu = cpuNs() - cpu0;
  const seconds = (performance.now() - t0) / 1000;
  const spans = TRACES * SPANS_PER_TRACE;
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
  };
}

main().then(
  (r) => process.send({ ok: true, ...r }, () => process.exit(0)),
  (err) => process.send({ ok: false, error: String(err?.stack ?? err) }, () => process.exit(1)),
);
