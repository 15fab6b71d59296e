import { randomBytes } from "node:crypto";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown, stats } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
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
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }));
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
