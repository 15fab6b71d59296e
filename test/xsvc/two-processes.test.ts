import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type Format, formats, load, runChild } from "../helpers/child.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";

/**
 * Two apps over loopback HTTP, each its own process with its own SDK, both reporting to the
 * emulator (strict): a caller whose observed function fetches a callee whose handler is
 * observed. `helpers`: our own injectTraceHeaders / withRemoteParent, no OpenTelemetry in the
 * apps. `otel`: the apps' own OpenTelemetry (a W3C propagator, a provider with the
 * EvaltraceSpanProcessor, a client span around the request and a server span around the
 * handler, as an HTTP instrumentation makes them), propagation.inject / extract.
 */
type Mode = "helpers" | "otel";

let dev: DevServer;
let proxy: FaultProxy;
/** Requests in the order the service got them. */
const arrivals: string[] = [];
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  proxy = await startFaultProxy(dev.url, (_n, r) => {
    arrivals.push(`${r.method} ${r.url}`);
    return undefined;
  });
});
afterAll(async () => {
  await proxy.close();
  await dev.close();
});

function otelSetup(format: Format): string {
  return `${load(format, "@opentelemetry/api", ["context", "propagation", "trace", "SpanKind"])}
${load(format, "@opentelemetry/core", ["W3CTraceContextPropagator"])}
${load(format, "@opentelemetry/sdk-trace-base", ["BasicTracerProvider"])}
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }));
const tracer = trace.getTracer("app");`;
}

function calleeSource(format: Format, mode: Mode): string {
  const serve =
    mode === "helpers"
      ? "withRemoteParent(req.headers, () => serve(req, res));"
      : `const ctx = propagation.extract(context.active(), req.headers);
         context.with(ctx, () => tracer.startActiveSpan("GET /ask", { kind: SpanKind.SERVER }, (span) => serve(req, res).finally(() => span.end())));`;
  return `${load(format, "evaltrace", ["configure", "observe", "withRemoteParent", "flush", "stats", "EvaltraceSpanProcessor"])}
${load(format, "node:http", ["createServer"])}
configure();
${mode === "otel" ? otelSetup(format) : ""}
const tag = process.env.TAG;
const lookup = observe({ type: "retriever", name: "callee-lookup-" + tag, embedder: "e" }, async (q) => [q + "!"]);
const handle = observe({ type: "agent", name: "callee-handle-" + tag }, async (q) => (await lookup(q))[0]);
const serve = (req, res) => handle(req.url.slice("/ask/".length)).then((out) => res.end(out));
const server = createServer((req, res) => {
  if (req.url === "/stats") return void res.end(JSON.stringify(stats()));
  if (req.url === "/flush") return void flush(20000).then((r) => res.end(JSON.stringify(r)));
  ${serve}
});
server.listen(0, "127.0.0.1", () => console.log("listening " + server.address().port + " ready"));`;
}

function callerSource(format: Format, mode: Mode): string {
  const request =
    mode === "helpers"
      ? `await fetch(callee + "/ask/" + q, { headers: injectTraceHeaders({ accept: "text/plain" }) })`
      : `await tracer.startActiveSpan("GET", { kind: SpanKind.CLIENT }, async (span) => {
           const headers = { accept: "text/plain" };
           propagation.inject(context.active(), headers);
           try { return await fetch(callee + "/ask/" + q, { headers }); } finally { span.end(); }
         })`;
  return `${load(format, "evaltrace", ["configure", "observe", "injectTraceHeaders", "flush", "currentSpanUuid", "currentTraceUuid", "EvaltraceSpanProcessor"])}
configure();
${mode === "otel" ? otelSetup(format) : ""}
const callee = process.env.CALLEE_URL;
const tag = process.env.TAG;
const ids = {};
const ask = observe({ type: "tool", name: "caller-ask-" + tag }, async (q) => {
  ids.ask = currentSpanUuid();
  ids.trace = currentTraceUuid();
  const res = ${request};
  const text = await res.text();
  if (process.env.HOLD === "1") {
    // This trace stays open (unsent) until the service has refused the callee's update once:
    // the callee finished, and reported, first.
    while ((await (await fetch(callee + "/stats")).json()).retries < 1) await new Promise((r) => setTimeout(r, 20));
  }
  return text;
});
const root = observe({ type: "agent", name: "caller-root-" + tag }, async () => ask("hello"));
const answer = await root();
const result = await flush();
console.log("done " + JSON.stringify({ answer, ids, result }));`;
}

interface Run {
  answer: string;
  ids: { ask: string; trace: string };
  result: { ok: boolean };
  calleeFlush: { ok: boolean; notDelivered: string[]; pending: string[] };
  calleeStats: Record<string, number>;
}

async function run(format: Format, mode: Mode, tag: string, hold: boolean): Promise<Run> {
  const env = { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: proxy.url, TAG: tag };
  const callee = runChild(format, calleeSource(format, mode), env);
  let out = "";
  callee.process.stdout!.on("data", (chunk: string) => {
    out += chunk;
  });
  try {
    await callee.waitFor(" ready");
    const port = /listening (\d+) ready/.exec(out)![1];
    const calleeUrl = `http://127.0.0.1:${port}`;
    const caller = runChild(format, callerSource(format, mode), { ...env, CALLEE_URL: calleeUrl, HOLD: hold ? "1" : "0" });
    const finished = await caller.finished;
    expect(finished.stderr).toBe("");
    expect(finished.code).toBe(0);
    const done = JSON.parse(/done (.*)/.exec(finished.stdout)![1]!) as Omit<Run, "calleeFlush" | "calleeStats">;
    const calleeFlush = (await (await fetch(`${calleeUrl}/flush`)).json()) as Run["calleeFlush"];
    const calleeStats = (await (await fetch(`${calleeUrl}/stats`)).json()) as Run["calleeStats"];
    return { ...done, calleeFlush, calleeStats };
  } finally {
    callee.process.kill();
    await callee.finished;
  }
}

/** One trace holding both processes' spans, each callee span under the right parent. */
function expectOneTrace(r: Run, tag: string): void {
  expect(r.answer).toBe("hello!");
  expect(r.result.ok).toBe(true);
  expect(r.calleeFlush).toMatchObject({ ok: true, notDelivered: [], pending: [] });
  // The callee sends no trace of its own: only late updates of the caller's.
  expect(r.calleeStats).toMatchObject({ tracesDelivered: 0, updatesDelivered: 1, updatesFailed: 0, updatesOrphaned: 0 });
  const withTag = Object.values(dev.state.traces).filter((t) => t.spans.some((s) => String(s.name).endsWith(`-${tag}`)));
  expect(withTag.map((t) => t.uuid)).toEqual([r.ids.trace]);
  const trace = withTag[0]!;
  const byName = new Map<string, StoredSpan>(trace.spans.map((s) => [String(s.name), s]));
  expect([...byName.keys()].sort()).toEqual([`callee-handle-${tag}`, `callee-lookup-${tag}`, `caller-ask-${tag}`, `caller-root-${tag}`]);
  const root = byName.get(`caller-root-${tag}`)!;
  const ask = byName.get(`caller-ask-${tag}`)!;
  const handle = byName.get(`callee-handle-${tag}`)!;
  const lookup = byName.get(`callee-lookup-${tag}`)!;
  expect(root.parentUuid).toBeUndefined();
  expect(ask.uuid).toBe(r.ids.ask);
  expect(ask.parentUuid).toBe(root.uuid);
  // The callee's root hangs under the caller's span that made the request.
  expect(handle.parentUuid).toBe(r.ids.ask);
  expect(lookup.parentUuid).toBe(handle.uuid);
  // The callee did not move the trace's end (it cannot know it): the caller's root ends it.
  expect(trace.fields.endTime).toBe(root.endTime);
}

describe("a trace that crosses two processes over HTTP", () => {
  for (const format of formats) {
    for (const mode of ["helpers", "otel"] as const) {
      it(`${format}, ${mode}: nothing lost when the callee finishes and reports first`, async () => {
        const tag = `${format}-${mode}-first`;
        const r = await run(format, mode, tag, true);
        expectOneTrace(r, tag);
        // The callee's update reached the service before the caller's trace, was refused and retried.
        expect(r.calleeStats.retries).toBeGreaterThanOrEqual(1);
        const put = arrivals.indexOf(`PUT /v1/traces/${r.ids.trace}`);
        const post = arrivals.lastIndexOf("POST /v1/traces");
        expect(put).toBeGreaterThanOrEqual(0);
        expect(put).toBeLessThan(post);
      });
    }
  }

  it("esm, helpers: without holding the caller's trace open", async () => {
    const tag = "esm-helpers-free";
    expectOneTrace(await run("esm", "helpers", tag, false), tag);
  });
});
