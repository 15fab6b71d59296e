// End to end through the real exporter to a loopback receiver in another process: spans per
// second delivered, bytes per span on the wire, peak RSS, and the event-loop delay (p99) that
// exporting adds to the app. Then 1,000,000 spans, to show memory bounded by the queue.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { configure, flush, observe, shutdown, stats } from "evaltrace";
import { startReceiver, table, tick } from "./common.mjs";

const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const BIG = Number(process.env.BENCH_BIG_SPANS ?? 1_000_000);
const SPANS_PER_TRACE = 4;

function workload() {
  const leaf = observe({ type: "tool", name: "tool" }, async (x) => ({ ok: x }));
  const llm = observe({ type: "llm", name: "generate", model: "gpt-4o-mini" }, async (q) => `answer to ${q}`);
  const ret = observe({ type: "retriever", name: "search", embedder: "e" }, async (q) => [`doc for ${q}`]);
  return observe({ type: "agent", name: "agent" }, async (q) => {
    await ret(q);
    await leaf(q);
    return llm(q);
  });
}

/** Runs `traces` traces in waves of 25 concurrent requests, letting the loop turn between waves as a server would. */
async function produce(agent, traces, onWave) {
  for (let i = 0; i < traces; i += 25) {
    const wave = [];
    for (let j = 0; j < 25 && i + j < traces; j++) wave.push(agent(`question ${i + j}`));
    await Promise.all(wave);
    await tick();
    onWave?.(i + 25);
  }
}

async function delayP99(run) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await run();
  h.disable();
  return h.percentile(99) / 1e6;
}

export async function throughput() {
  const receiver = await startReceiver();
  const base = { apiKey: "svc_local_proj_bench", baseUrl: receiver.url, registerExitHooks: false };

  // Baseline: the same app with tracing off.
  configure({ ...base, enabled: false });
  const baselineP99 = await delayP99(() => produce(workload(), SPANS / SPANS_PER_TRACE));

  configure(base);
  receiver.reset();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  let flushed;
  const tracedP99 = await delayP99(async () => {
    await produce(workload(), SPANS / SPANS_PER_TRACE);
    flushed = await flush();
  });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const got = await receiver.stats();
  const s = stats();
  const first = {
    spans: SPANS,
    "spans/s delivered": Math.round(got.spans / seconds),
    "bytes/span": Math.round(got.bytes / got.spans),
    "peak RSS growth MB": ((peak - rss0) / 1e6).toFixed(1),
    "p99 loop delay, off (ms)": baselineP99.toFixed(2),
    "p99 loop delay, on (ms)": tracedP99.toFixed(2),
    "p99 added (ms)": Math.max(0, tracedP99 - baselineP99).toFixed(2),
    "delivered / dropped": `${got.spans} / ${s.tracesDropped * SPANS_PER_TRACE}`,
  };
  if (!flushed.ok || got.spans !== SPANS) throw new Error(`lost spans: ${got.spans} of ${SPANS}`);
  await shutdown();

  // 1,000,000 spans: RSS stays bounded by the queue, whatever the volume.
  configure({ ...base, batch: { maxQueuedTraces: 10_000 } });
  receiver.reset();
  const agent = workload();
  const samples = [];
  const start = process.memoryUsage().rss;
  await produce(agent, BIG / SPANS_PER_TRACE, (done) => {
    if (done % 25_000 === 0) samples.push({ spans: done * SPANS_PER_TRACE, rssMB: Math.round(process.memoryUsage().rss / 1e6) });
  });
  const bigFlush = await flush();
  const bigGot = await receiver.stats();
  await shutdown();
  await receiver.stop();
  table([first]);
  console.log(`\n${BIG.toLocaleString()} spans (maxQueuedTraces 10,000): RSS by spans produced`);
  table(samples.map((x) => ({ "spans produced": x.spans.toLocaleString(), "RSS MB": x.rssMB })));
  console.log(`delivered ${bigGot.spans.toLocaleString()} spans, flush ok: ${bigFlush.ok}; RSS at start ${Math.round(start / 1e6)} MB`);
  return {
    spans: SPANS,
    spansPerSecondDelivered: first["spans/s delivered"],
    bytesPerSpan: first["bytes/span"],
    peakRssGrowthMB: Number(first["peak RSS growth MB"]),
    eventLoopDelayP99Ms: { off: Number(baselineP99.toFixed(2)), on: Number(tracedP99.toFixed(2)) },
    million: { spansDelivered: bigGot.spans, rssMBBySpans: samples },
  };
}
