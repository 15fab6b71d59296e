import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { formats, load, runChild } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// V8 forgets an object shape no live object has had through a few full GCs, and throws away the
// optimized code built on it (src/spans/kept-shapes.ts). An app in a child process, in ESM and
// CommonJS, traces a burst (observed spans, and under them spans of the app's own OpenTelemetry
// tracer with GenAI attributes, through the bridge), waits until all of it is delivered (nothing
// of ours alive), and goes through full GCs, as an idle server does. The observed function's
// optimized code (span start, context and trace record inlined) must still be there after, and
// V8 must have thrown away no optimized code of the span, export and bridge paths for a shape
// that died ("weak objects").
const onV8 = runsHere(!("Bun" in globalThis), "test/spans/kept-shapes.test.ts", "V8 only: what it checks is V8's optimized code and object shapes");
// Functions of the span, export and bridge paths, by the names V8 gives them (others, Node's and
// OpenTelemetry's own, may lose code for shapes of theirs that died).
const OURS = new Set([
  "wrapped",
  "startObservedSpan",
  "isSettled",
  "addOpenSpan",
  "endOpenSpan",
  "keep",
  "takeBatch",
  "prepare",
  "writeSpansOfType",
  "writeRest",
  "parentSpanIdOf",
  "plainObject",
  "plainArray",
  "writeTrace",
  "writeSpan",
  "floorStart",
  "finishedSpan",
  "interpret",
  "takeLogs",
]);

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

describe.skipIf(!onV8).each(formats)("optimized code across full GCs with no trace alive (%s)", (format) => {
  it("the observed function stays optimized, and every trace of the burst is delivered", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "EvaltraceSpanProcessor", "flush", "observe", "stats"])}
       ${load(format, "@opentelemetry/api", ["trace"])}
       ${load(format, "@opentelemetry/sdk-trace-base", ["BasicTracerProvider"])}
       const v8 = await import("node:v8");
       const vm = await import("node:vm");
       v8.setFlagsFromString("--allow-natives-syntax");
       v8.setFlagsFromString("--expose-gc");
       const gc = vm.runInNewContext("gc");
       const prepare = new Function("f", "%PrepareFunctionForOptimization(f)");
       const optimizeNext = new Function("f", "%OptimizeFunctionOnNextCall(f)");
       // V8's OptimizationStatus: bit 4 is "optimized" (TurboFan or Maglev).
       const optimized = new Function("f", "return (%GetOptimizationStatus(f) & 16) !== 0");
       configure({ logLevel: "silent" });
       trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }));
       const appTracer = trace.getTracer("app");
       const chat = (q) => appTracer.startActiveSpan("chat m", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" } }, (span) => { span.end(); return q; });
       const llm = observe({ type: "llm", name: "generate", model: "m" }, async (q) => "answer to " + chat(q));
       const tool = observe({ type: "tool", name: "lookup" }, async (q) => ({ ok: true, q }));
       const agent = observe({ type: "agent", name: "agent" }, async (q) => { await tool(q); return llm(q); });
       prepare(agent);
       const burst = async (from, n) => {
         for (let i = from; i < from + n; i += 25) {
           await Promise.all(Array.from({ length: 25 }, (_, j) => agent("q" + (i + j))));
           await new Promise((r) => setImmediate(r));
         }
       };
       await burst(0, 500);
       optimizeNext(agent);
       await burst(500, 500);
       await flush();
       const before = optimized(agent);
       v8.setFlagsFromString("--trace-deopt");
       console.log("GC");
       for (let i = 0; i < 4; i++) gc();
       console.log("GC done");
       v8.setFlagsFromString("--no-trace-deopt");
       const after = optimized(agent);
       await burst(1000, 100);
       await flush();
       console.log("RESULT " + JSON.stringify({ before, after, delivered: stats().tracesDelivered }));`,
      { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url },
    );
    const done = await child.finished;
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const lines = done.stdout.split("\n");
    const result = lines.find((line) => line.startsWith("RESULT "));
    expect(JSON.parse(result!.slice(7))).toEqual({ before: true, after: true, delivered: 1100 });
    // V8's trace of the code it threw away during the GCs because an object it was built on died.
    const duringGc = lines.slice(lines.indexOf("GC"), lines.indexOf("GC done"));
    expect(duringGc.length).toBeGreaterThan(0);
    const lostCode = duringGc.flatMap((line) => /SharedFunctionInfo ([^>]*)>.*reason: weak objects/.exec(line)?.[1] ?? []);
    expect(lostCode.filter((name) => OURS.has(name))).toEqual([]);
  });
});
