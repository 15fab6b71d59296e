// The subjects of the side-by-side benchmark, each set up the way its docs show, pointed at the
// bench receiver (`base` is the subject's own prefix there). Every subject gives the same app:
//   agent(q)  — workload A: an agent span with two children, an LLM call and a tool call;
//   sync(a,b) — workload B: one synchronous span;
//   flush()   — everything ended so far delivered (or the SDK's own flush returned).
// Queues are made large enough that nothing is dropped (OTEL_BSP_MAX_QUEUE_SIZE for the OTel
// batch processors, which Langfuse's builds itself; maxQueuedTraces for evaltrace).
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const llmAnswer = async (q) => `answer to ${q}`;
const toolResult = async (q) => ({ ok: true, q });
const add = (a, b) => a + b;

/** Spans in a trace of workload A (agent, llm, tool: {@link agentOf}). */
export const SPANS_PER_TRACE = 3;
/** Traces (or calls) per chunk of workloads A and B: timed together, then flushed. */
export const CHUNK = 1000;
/** Traces started together in workloads C and D. */
export const WAVE = 25;

/** Builds workload A from a wrapper `wrap(kind, name, fn)`. */
function agentOf(wrap) {
  const llm = wrap("llm", "generate", llmAnswer);
  const tool = wrap("tool", "lookup", toolResult);
  return wrap("agent", "agent", async (q) => {
    await tool(q);
    return llm(q);
  });
}

/** An OTel provider with the OTLP/HTTP JSON exporter behind a batch span processor, registered globally. */
async function otelProvider(url, processors) {
  const { context, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { BasicTracerProvider, BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // Exports in flight at once: as many as the queue holds batches of 512. At the exporter's
  // default of 30 it refuses the 31st ("Concurrent export limit reached": the batch is dropped
  // and forceFlush() rejects), which a backlog of over 15,360 spans at a flush brings about on a
  // slow machine: raw OTel then failed workload C, and the run had no floor.
  const concurrencyLimit = Math.ceil(Number(subjectEnv.OTEL_BSP_MAX_QUEUE_SIZE) / 512);
  const spanProcessors = processors ?? [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces`, concurrencyLimit }))];
  const provider = new BasicTracerProvider({ spanProcessors });
  trace.setGlobalTracerProvider(provider);
  return provider;
}

export const subjects = {
  /** The app with no tracing: its cost is subtracted from every in-call figure. */
  bare: async () => ({ agent: agentOf((_k, _n, f) => f), sync: add, flush: async () => {} }),

  /** The floor: raw OpenTelemetry, startActiveSpan, BatchSpanProcessor and the OTLP/HTTP JSON exporter. */
  "raw OTel + OTLP": async (url) => {
    const provider = await otelProvider(url);
    const tracer = provider.getTracer("bench");
    const wrap = (_k, name, fn) => (...args) =>
      tracer.startActiveSpan(name, async (span) => {
        try {
          return await fn(...args);
        } finally {
          span.end();
        }
      });
    const sync = (...args) =>
      tracer.startActiveSpan("add", (span) => {
        try {
          return add(...args);
        } finally {
          span.end();
        }
      });
    return { agent: agentOf(wrap), sync, flush: () => provider.forceFlush() };
  },

  evaltrace: async (url) => evaltraceSubject(url, true),
  "evaltrace, capture off": async (url) => evaltraceSubject(url, false),

  /** OpenInference's wrappers (inputs and outputs captured as attributes) on OTel + OTLP. */
  OpenInference: async (url) => {
    const provider = await otelProvider(url);
    const oi = await import("@arizeai/openinference-core");
    const tracer = provider.getTracer("bench");
    const by = { agent: oi.traceAgent, llm: oi.traceLLM, tool: oi.traceTool };
    const wrap = (kind, name, fn) => by[kind](fn, { name, tracer });
    return { agent: agentOf(wrap), sync: oi.traceChain(add, { name: "add", tracer }), flush: () => provider.forceFlush() };
  },

  /** Langfuse v5: observe() over its own span processor (OTLP/HTTP JSON to /api/public/otel). */
  Langfuse: async (url) => {
    const { LangfuseSpanProcessor } = await import("@langfuse/otel");
    const lf = await import("@langfuse/tracing");
    const processor = new LangfuseSpanProcessor({ publicKey: "pk-lf-bench", secretKey: "sk-lf-bench", baseUrl: url, mediaUploadEnabled: false });
    const provider = await otelProvider(url, [processor]);
    lf.setLangfuseTracerProvider(provider);
    const asType = { agent: "agent", llm: "generation", tool: "tool" };
    const wrap = (kind, name, fn) => lf.observe(fn, { name, asType: asType[kind] });
    return { agent: agentOf(wrap), sync: lf.observe(add, { name: "add" }), flush: () => processor.forceFlush() };
  },

  /** LangSmith: traceable() with its client's auto-batching (multipart). */
  LangSmith: async (url) => {
    const { Client } = await import("langsmith");
    const { traceable } = await import("langsmith/traceable");
    const client = new Client({ apiUrl: url, apiKey: "lsv2_bench", autoBatchTracing: true });
    const runType = { agent: "chain", llm: "llm", tool: "tool" };
    const wrap = (kind, name, fn) => traceable(fn, { name, run_type: runType[kind], client, tracingEnabled: true });
    return { agent: agentOf(wrap), sync: wrap("chain", "add", add), flush: () => client.awaitPendingTraceBatches() };
  },

  /**
   * The service vendor's npm SDK. It has no base-URL setting for tracing (the host follows the
   * key's region), so its axios requests to the service are redirected to the receiver. It
   * posts one trace per request, at most one request every 200 ms (its `minInterval`).
   */
  deepeval: async (url) => {
    const require = createRequire(fileURLToPath(new URL("./peers/node_modules/deepeval/package.json", import.meta.url)));
    const axios = require("axios");
    (axios.default ?? axios).interceptors.request.use((cfg) => {
      cfg.url = String(cfg.url).replace(/^https:\/\/[a-z.]*api\.confident-ai\.com/, url);
      return cfg;
    });
    const tracing = require("deepeval/tracing");
    const type = { agent: "agent", llm: "llm", tool: "tool" };
    const wrap = (kind, name, fn) => tracing.observe({ type: type[kind], name, fn, ...(kind === "llm" ? { model: "gpt-4o-mini" } : {}) });
    return { agent: agentOf(wrap), sync: tracing.observe({ name: "add", fn: add }), flush: () => tracing.traceManager.flush() };
  },
};

/**
 * Other builds of evaltrace to measure beside it in one run, e.g. before and after a change:
 * BENCH_BUILDS="before=dist-old/index.js,after=dist/index.js" adds subjects "evaltrace@before"
 * and "evaltrace@after" (each an ESM entry file; bundle one with esbuild, packages external).
 */
export const builds = Object.fromEntries(
  (process.env.BENCH_BUILDS ?? "")
    .split(",")
    .filter(Boolean)
    .map((entry) => entry.split("=")),
);
for (const [name, file] of Object.entries(builds)) {
  subjects[`evaltrace@${name}`] = async (url) => evaltraceSubject(url, true, pathToFileURL(resolve(file)).href);
}

async function evaltraceSubject(url, capture, from = "evaltrace") {
  const { configure, flush, observe } = await import(from);
  configure({
    apiKey: "svc_local_proj_bench",
    baseUrl: url,
    captureInputs: capture,
    captureOutputs: capture,
    registerExitHooks: false,
    batch: { maxQueuedTraces: 1_000_000 },
  });
  const opts = { agent: { type: "agent" }, llm: { type: "llm", model: "gpt-4o-mini" }, tool: { type: "tool" } };
  const wrap = (kind, name, fn) => observe({ ...opts[kind], name }, fn);
  return {
    agent: agentOf(wrap),
    sync: observe({ name: "add" }, add),
    flush: async () => {
      const r = await flush();
      if (!r.ok) throw new Error(`evaltrace flush: ${JSON.stringify(r).slice(0, 200)}`);
    },
  };
}

/** Environment every subject's process gets. */
export const subjectEnv = {
  OTEL_BSP_MAX_QUEUE_SIZE: "1000000",
  LANGSMITH_TRACING: "true",
  LANGCHAIN_CALLBACKS_BACKGROUND: "true",
  CONFIDENT_API_KEY: "confident_us_bench",
  CONFIDENT_TRACE_VERBOSE: "0",
  CONFIDENT_TRACE_FLUSH: "0",
  DEEPEVAL_TELEMETRY_OPT_OUT: "1",
  ERROR_REPORTING: "0",
};
