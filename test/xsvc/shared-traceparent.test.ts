import { randomBytes } from "node:crypto";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown, stats } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

// Issue 49 point 5: requests that carry one incoming `traceparent` from something that is not
// evaltrace (a retried or fanned-out upstream call, a gateway) share a trace id. Each request's
// spans must reach the service, at once or one after the other.
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
