import { randomBytes } from "node:crypto";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentSpanUuid, currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown, stats } from "../../src/index.js";
import { startFaultProxy } from "../helpers/fault-proxy.js";
import { configureForTest } from "../helpers/sdk.js";

// The app's own OpenTelemetry: a W3C propagator, and a provider with the EvaltraceSpanProcessor
// (so observed spans are the active OTel span, and propagation.inject sees them).
let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }));
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

// A request whose traceparent comes from something that is not evaltrace (a load balancer, a
// gateway, a caller traced by another vendor): there is no trace of it at the service to join,
// so the app's spans start their own (sent whole with POST), rather than late updates that would
// wait for a trace that never comes.
it("the app's OpenTelemetry: a request traced only by a gateway is a trace of its own", async () => {
  configureForTest(dev.url, dev.projectKey);
  const tracer = trace.getTracer("app");
  const traceId = randomBytes(16).toString("hex");
  const headers = { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`, tracestate: "gw=1" };
  const handler = observe({ name: "gateway-handler" }, async () => currentTraceUuid());
  const ctx = propagation.extract(context.active(), headers);
  const uuid = await context.with(ctx, () =>
    tracer.startActiveSpan("GET /", { kind: SpanKind.SERVER }, async (span) => {
      try {
        return await handler();
      } finally {
        span.end();
      }
    }),
  );
  expect((await flush()).ok).toBe(true);
  const stored = dev.state.traces[uuid!];
  expect(stored?.spans.map((s) => [s.name, s.parentUuid === undefined])).toEqual(
    expect.arrayContaining([
      ["GET /", true],
      ["gateway-handler", false],
    ]),
  );
  expect(stats()).toMatchObject({ tracesDelivered: 1, updatesDelivered: 0, updatesOrphaned: 0 });
});

it("the app's OpenTelemetry: a trace whose root is a web framework's server span takes its input and output from the agent under it", async () => {
  configureForTest(dev.url, dev.projectKey);
  const agent = observe({ type: "agent", name: "request-agent" }, async (question: string) => ({ answer: `about ${question}`, trace: currentTraceUuid()! }));
  const out = await trace.getTracer("web").startActiveSpan("POST /api/ask", { kind: SpanKind.SERVER }, async (span) => {
    try {
      return await agent("refunds");
    } finally {
      span.end();
    }
  });
  expect((await flush()).ok).toBe(true);
  const stored = dev.state.traces[out.trace]!;
  expect(stored.spans.find((s) => s.parentUuid === undefined)?.name).toBe("POST /api/ask");
  expect(stored.fields).toMatchObject({ name: "POST /api/ask", input: "refunds", output: JSON.stringify({ answer: "about refunds", trace: out.trace }) });
});

it("the app's OpenTelemetry: propagation.inject / extract in one process, the request's parent wins over the span around the handler", async () => {
  configureForTest(dev.url, dev.projectKey);
  const handler = observe({ name: "handler" }, async () => currentTraceUuid());
  const send = observe({ name: "sender" }, async () => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    return { headers, span: currentSpanUuid()! };
  });
  const receive = observe({ name: "receiver" }, async (headers: Record<string, string>) =>
    context.with(propagation.extract(context.active(), headers), () => handler()),
  );
  const out = await observe({ name: "root" }, async () => {
    const sent = await send();
    expect(sent.headers.tracestate).toMatch(/^evaltrace=[0-9a-f]{16}$/);
    return { sent, handled: await receive(sent.headers), trace: currentTraceUuid()! };
  })();
  expect(out.handled).toBe(out.trace);
  expect((await flush()).ok).toBe(true);
  const spans = dev.state.traces[out.trace]!.spans;
  expect(spans.find((s) => s.name === "handler")!.parentUuid).toBe(out.sent.span);
  expect(stats()).toMatchObject({ tracesDelivered: 1, updatesOrphaned: 0 });
});

// Issue 49 point 5: requests that carry one incoming `traceparent` from something that is not
// evaltrace (a retried or fanned-out upstream call, a gateway) share a trace id. Each request's
// spans must reach the service, at once or one after the other.
function upstream() {
  return { traceparent: `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01` };
}

/** A request served as a web framework does: its server span under the incoming context, an agent inside. */
async function serve(headers: Record<string, string>, question: string, pauseMillis = 0) {
  const agent = observe({ type: "agent", name: "shared-agent" }, async (q: string) => {
    await new Promise((r) => setTimeout(r, pauseMillis));
    return { answer: `answer to ${q}`, trace: currentTraceUuid()! };
  });
  return context.with(propagation.extract(context.active(), headers), () =>
    trace.getTracer("web").startActiveSpan("GET /api/chat", { kind: SpanKind.SERVER }, async (span) => {
      try {
        return await agent(question);
      } finally {
        span.end();
      }
    }),
  );
}

function agentsStored(uuid: string): string[] {
  return (dev.state.traces[uuid]?.spans ?? []).filter((s) => s.name === "shared-agent").map((s) => JSON.stringify(s.input));
}

it("two requests at once under one foreign traceparent: both agents are stored, in the trace of that upstream request", async () => {
  const log = configureForTest(dev.url, dev.projectKey);
  const headers = upstream();
  const [a, b] = await Promise.all([serve(headers, "at-once-1", 30), serve(headers, "at-once-2", 10)]);
  expect(a.trace).toBe(b.trace);
  expect((await flush()).ok).toBe(true);
  expect(agentsStored(a.trace).sort()).toEqual(['"at-once-1"', '"at-once-2"']);
  expect(stats()).toMatchObject({ tracesFailed: 0, updatesFailed: 0 });
  expect(log.lines.filter((l) => !l.startsWith("debug"))).toEqual([]);
});

it("two requests one after the other under one foreign traceparent: the later one's spans are added to the trace the first one sent", async () => {
  const log = configureForTest(dev.url, dev.projectKey);
  const headers = upstream();
  const a = await serve(headers, "after-1");
  expect((await flush()).ok).toBe(true);
  const b = await serve(headers, "after-2");
  expect((await flush()).ok).toBe(true);
  expect(b.trace).toBe(a.trace);
  expect(agentsStored(a.trace).sort()).toEqual(['"after-1"', '"after-2"']);
  expect(stats()).toMatchObject({ tracesFailed: 0, updatesFailed: 0 });
  expect(log.lines.filter((l) => !l.startsWith("debug"))).toEqual([]);
});

it("one after the other under one foreign traceparent, the first answer of every request lost (stored, then the connection reset): both agents stored, nothing given up", async () => {
  // Every write's first attempt reaches the service and its answer is lost; the retry (same
  // Idempotency-Key) gets the answer the service remembered: for the later request's POST, the 409.
  const firstTries = new Set<string>();
  const proxy = await startFaultProxy(dev.url, (_n, req) => {
    const key = String(req.headers["idempotency-key"] ?? `${req.method} ${req.url}`);
    if (req.method === "GET" || firstTries.has(key)) return undefined;
    firstTries.add(key);
    return "store-then-reset";
  });
  try {
    const log = configureForTest(proxy.url, dev.projectKey);
    const headers = upstream();
    const a = await serve(headers, "lost-1");
    expect((await flush()).ok).toBe(true);
    const b = await serve(headers, "lost-2");
    expect((await flush()).ok).toBe(true);
    expect(b.trace).toBe(a.trace);
    expect(agentsStored(a.trace).sort()).toEqual(['"lost-1"', '"lost-2"']);
    expect(proxy.counts.faults["store-then-reset"]).toBeGreaterThanOrEqual(3);
    expect(stats()).toMatchObject({ tracesFailed: 0, updatesFailed: 0 });
    expect(log.lines.filter((l) => !l.startsWith("debug"))).toEqual([]);
  } finally {
    await proxy.close();
  }
});
