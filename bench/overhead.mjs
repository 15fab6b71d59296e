// Per-span overhead of observe(), in CPU time of the app's process, against the bare functions
// and raw OpenTelemetry (startActiveSpan + AsyncLocalStorage context manager + BatchSpanProcessor
// with a discarding exporter), all measured in the same run, interleaved round by round.
// Two figures per variant: in-call (inside the app's call; evaltrace's export deferred) and
// export (raw OTel discards; evaltrace maps, serializes and delivers every span over HTTP to a
// receiver in another process).
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { configure, flush, observe, shutdown } from "evaltrace";
import { median, startReceiver, table } from "./common.mjs";

const TRACES = Number(process.env.BENCH_TRACES ?? 20_000);
const SYNC_CALLS = Number(process.env.BENCH_SYNC_CALLS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

export async function overhead() {
  const receiver = await startReceiver();

  // Raw OpenTelemetry, set up the way its docs show.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const discard = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const bsp = new BatchSpanProcessor(discard, { maxQueueSize: 100_000, maxExportBatchSize: 1000 });
  const otel = new BasicTracerProvider({ spanProcessors: [bsp] }).getTracer("bench");
  const otelWrap = (name, fn) => (...args) => otel.startActiveSpan(name, async (span) => {
    try {
      return await fn(...args);
    } finally {
      span.end();
    }
  });
  const otelWrapSync = (name, fn) => (...args) => otel.startActiveSpan(name, (span) => {
    try {
      return fn(...args);
    } finally {
      span.end();
    }
  });

  const leaf = async (x) => x + 1;
  const makeAgent = (wrap) => {
    const a = wrap("retrieve", leaf);
    const b = wrap("generate", leaf);
    return wrap("agent", async (x) => (await a(x)) + (await b(x)));
  };
  const variants = {
    bare: { agent: makeAgent((_n, f) => f), sync: (a, b) => a + b, done: async () => {} },
    "raw OpenTelemetry": { agent: makeAgent(otelWrap), sync: otelWrapSync("add", (a, b) => a + b), done: () => bsp.forceFlush() },
  };
  const evaltrace = (capture) => {
    // Nothing is sent until done() (a chunk is 3,000 spans at most): calls and export are timed apart.
    configure({
      apiKey: "svc_local_proj_bench",
      baseUrl: receiver.url,
      captureInputs: capture,
      captureOutputs: capture,
      registerExitHooks: false,
      batch: { maxQueuedTraces: 100_000, maxSpansPerRequest: 4000, flushIntervalMillis: 3_600_000 },
    });
    return {
      agent: makeAgent((name, f) => observe({ name }, f)),
      sync: observe({ name: "add" }, (a, b) => a + b),
      done: async () => {
        const r = await flush();
        if (!r.ok) throw new Error(`not delivered: ${JSON.stringify(r).slice(0, 200)}`);
      },
    };
  };

  // CPU time of this process (user + system), so waiting on the receiver process is not counted.
  const cpuNs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) * 1000;
  };
  // Chunks of 1,000 traces: the chunk's calls are timed as in-call cost, the flush after it as
  // export cost. Small chunks keep the heap small, so neither figure is inflated by GC of a
  // backlog no real app would hold.
  const CHUNK = 1000;
  /** [in-call, export] CPU ns per span. */
  const timeAsync = async (v) => {
    let call = 0;
    let exp = 0;
    for (let i = 0; i < TRACES; i += CHUNK) {
      const t0 = cpuNs();
      for (let k = 0; k < CHUNK; k += 250) {
        const batch = [];
        for (let j = 0; j < 250; j++) batch.push(v.agent(i + k + j));
        await Promise.all(batch);
      }
      const t1 = cpuNs();
      await v.done();
      call += t1 - t0;
      exp += cpuNs() - t1;
    }
    return [call / (TRACES * 3), exp / (TRACES * 3)];
  };
  const timeSync = async (v) => {
    let call = 0;
    let exp = 0;
    let acc = 0;
    for (let i = 0; i < SYNC_CALLS; i += CHUNK) {
      const t0 = cpuNs();
      for (let j = 0; j < CHUNK; j++) acc += v.sync(i + j, 1);
      const t1 = cpuNs();
      await v.done();
      call += t1 - t0;
      exp += cpuNs() - t1;
    }
    if (acc === 0) throw new Error("unreachable");
    return [call / SYNC_CALLS, exp / SYNC_CALLS];
  };

  const results = { async: {}, sync: {} };
  const names = ["bare", "raw OpenTelemetry", "evaltrace observe()", "evaltrace observe(), capture off"];
  for (const n of names) {
    results.async[n] = [];
    results.sync[n] = [];
  }
  for (let round = 0; round < ROUNDS + 1; round++) {
    // Interleave the variants each round so machine noise hits them alike; round 0 warms up.
    for (const n of names) {
      const v = variants[n] ?? evaltrace(!n.includes("capture off"));
      const a = await timeAsync(v);
      const s = await timeSync(v);
      if (round > 0) {
        results.async[n].push(a);
        results.sync[n].push(s);
      }
    }
  }
  const delivered = await receiver.stats();
  await shutdown();
  await receiver.stop();
  const rows = [];
  const out = {};
  for (const kind of ["async", "sync"]) {
    const m = (n, i) => median(results[kind][n].map((x) => x[i]));
    const bare = m("bare", 0);
    const rawCall = m("raw OpenTelemetry", 0) - bare;
    const rawTotal = rawCall + m("raw OpenTelemetry", 1);
    for (const n of names) {
      const call = m(n, 0) - bare;
      const exp = m(n, 1);
      const row = {
        workload: kind === "async" ? `agent + 2 children, ${TRACES} traces` : `sync add, ${SYNC_CALLS} calls`,
        variant: n,
        "in-call ns/span": call.toFixed(0),
        "x raw OTel (in-call)": n === "bare" ? "-" : (call / rawCall).toFixed(2),
        "export ns/span": exp.toFixed(0),
        "total ns/span": (call + exp).toFixed(0),
        "x raw OTel (total)": n === "bare" ? "-" : ((call + exp) / rawTotal).toFixed(2),
      };
      rows.push(row);
      out[`${kind}: ${n}`] = {
        inCallNsPerSpan: Math.round(call),
        exportNsPerSpan: Math.round(exp),
        inCallRatioToRawOtel: n === "bare" ? null : Number((call / rawCall).toFixed(3)),
        totalRatioToRawOtel: n === "bare" ? null : Number(((call + exp) / rawTotal).toFixed(3)),
      };
    }
  }
  table(rows);
  console.log(
    `(CPU time of this process, median of ${ROUNDS} rounds, bare function cost subtracted. In-call: inside the app's call. Export: raw OTel discards;` +
      ` evaltrace maps, serializes and delivers over HTTP to a receiver process, which got ${delivered.spans} spans.)`,
  );
  return out;
}
