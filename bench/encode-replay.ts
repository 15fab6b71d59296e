// The encoder alone (issue 46): traces of workloads A and B made by the SDK once, then written
// again and again into batch slabs by the same TraceBodies.prepare the exporter calls, CPU time
// per span. Bundled per build so that two encoders can be compared by alternating runs:
//   npx esbuild bench/encode-replay.ts --bundle --platform=node --format=esm --packages=external --outfile=.builds/<name>/replay.mjs
//   node .builds/<name>/replay.mjs [passes=12] [ab|a|b]
// Prints ns per span for A and B (median of the passes). The bytes themselves are checked by
// test/encode (property tests against the reference mapping), not here.
import { createServer } from "node:http";
import { newSlab } from "../src/encode/batch-body.js";
import type { JsonBytes } from "../src/encode/json-bytes.js";
import { TraceBodies } from "../src/encode/trace-body.js";
import { configure, flush, observe } from "../src/index.js";
import type { OutgoingTrace } from "../src/traces/outgoing.js";

const TRACES = 1000;
const passes = Number(process.argv[2] ?? 12);
/** Which workloads are written: "ab", "a" or "b" (one alone, for a profile of it). */
const only = process.argv[3] ?? "ab";

const captured: { out: OutgoingTrace; bodies: TraceBodies }[] = [];
const prepare = TraceBodies.prototype.prepare;
TraceBodies.prototype.prepare = function (this: TraceBodies, out: OutgoingTrace, slab: JsonBytes) {
  captured.push({ out, bodies: this });
  return prepare.call(this, out, slab);
};

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const address = server.address();
const port = typeof address === "object" && address !== null ? address.port : 0;
configure({ apiKey: "svc_local_proj_bench", baseUrl: `http://127.0.0.1:${port}`, registerExitHooks: false, batch: { maxQueuedTraces: 1_000_000 } });

const llm = observe({ type: "llm", model: "gpt-4o-mini", name: "generate" }, async (q: string) => `answer to ${q}`);
const tool = observe({ type: "tool", name: "lookup" }, async (q: string) => ({ ok: true, q }));
const agent = observe({ type: "agent", name: "agent" }, async (q: string) => {
  await tool(q);
  return llm(q);
});
const add = observe({ name: "add" }, (a: number, b: number) => a + b);

async function capture(run: () => Promise<void>): Promise<{ out: OutgoingTrace; bodies: TraceBodies }[]> {
  captured.length = 0;
  await run();
  await flush();
  return captured.splice(0);
}

const a = await capture(async () => {
  for (let i = 0; i < TRACES; i += 250) await Promise.all(Array.from({ length: 250 }, (_, j) => agent(`question ${i + j}`)));
});
const b = await capture(async () => {
  let acc = 0;
  for (let i = 0; i < TRACES; i++) acc += add(i, 1);
  if (acc === 0) throw new Error("unreachable");
});
server.close();
// The replay calls prepare itself.
TraceBodies.prototype.prepare = prepare;

function pass(traces: { out: OutgoingTrace; bodies: TraceBodies }[]): number {
  // Made the size it ends up (the exporter sizes each slab by the batch before it).
  const slab = newSlab(1024 * 1024);
  let spans = 0;
  const t0 = process.cpuUsage();
  for (const { out, bodies } of traces) {
    const p = bodies.prepare(out, slab);
    spans += p.spanCount;
    // A new slab per 1,000 spans, as the exporter takes batches.
    if (slab.pos > 512 * 1024) slab.reset();
  }
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / spans;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
/** The median and the least of the passes (on a shared machine the least is the steadier). */
const figures = (xs: number[]) => `${median(xs).toFixed(0)} (least ${Math.min(...xs).toFixed(0)})`;
const times = { a: [] as number[], b: [] as number[] };
for (let i = 0; i < passes; i++) {
  // Each pass writes every trace 5 times (5,000 traces), long enough to time.
  let ta = 0;
  let tb = 0;
  for (let k = 0; k < 5; k++) {
    if (only.includes("a")) ta += pass(a);
    if (only.includes("b")) tb += pass(b);
  }
  times.a.push(ta / 5);
  times.b.push(tb / 5);
}
console.log(`A ${figures(times.a)} ns/span, B ${figures(times.b)} ns/span (median of ${passes} passes; ${a.length} and ${b.length} traces)`);
