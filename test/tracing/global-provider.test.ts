import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
const appExporter = new InMemorySpanExporter();
const appProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter)] });
const appContextManager = new AsyncLocalStorageContextManager().enable();

beforeAll(async () => {
  // The app registered its own global provider and context manager before us.
  trace.setGlobalTracerProvider(appProvider);
  context.setGlobalContextManager(appContextManager);
  dev = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

/**
 * An app span inside our observed spans, inside the app's own request span: the app's provider
 * stays the app's, its span's parent is its own request span (never ours), and our trace is our
 * two spans, properly nested.
 */
async function expectAppTracesUntouched(): Promise<void> {
  appExporter.reset();
  const appTracer = trace.getTracer("app");
  const inner = observe({ name: "ours-inner" }, async () => {
    // An app span (say, an instrumented HTTP call) inside our span: its parent must be the
    // app's own span, which its backend knows, never ours.
    appTracer.startActiveSpan("app-http", (s) => s.end());
    return currentTraceUuid();
  });
  const ours = observe({ name: "ours" }, async () => inner());
  let uuid: string | undefined;
  await appTracer.startActiveSpan("app-request", async (span) => {
    uuid = await ours();
    span.end();
  });
  await flush();

  // Still the app's.
  expect((trace.getTracerProvider() as unknown as { getDelegate?: () => unknown }).getDelegate?.() ?? trace.getTracerProvider()).toBe(appProvider);
  const appSpans = appExporter.getFinishedSpans();
  expect(appSpans.map((s) => s.name).sort()).toEqual(["app-http", "app-request"]);
  const request = appSpans.find((s) => s.name === "app-request")!;
  const http = appSpans.find((s) => s.name === "app-http")!;
  expect(http.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  // Ours: a trace of our two spans, properly nested.
  const stored = dev.state.traces[uuid!]!;
  expect(stored.spans.map((s) => s.name).sort()).toEqual(["ours", "ours-inner"]);
  const root = stored.spans.find((s) => s.name === "ours")!;
  expect(root.parentUuid).toBeUndefined();
  expect(stored.spans.find((s) => s.name === "ours-inner")!.parentUuid).toBe(root.uuid);
}

it('without an EvaltraceSpanProcessor anywhere: the app\'s provider, context manager and traces stay as they were', async () => {
  configureForTest(dev.url, dev.projectKey);
  await expectAppTracesUntouched();
});

it('otelContext "separate", even with a bridge: the app\'s traces stay as they were', async () => {
  new EvaltraceSpanProcessor(); // a bridge exists in the process from now on
  configureForTest(dev.url, dev.projectKey, { otelContext: "separate" });
  await expectAppTracesUntouched();
});

it('otelContext "shared" (the default) once a bridge exists: an app span inside observe() is our span\'s child; the provider and context manager stay the app\'s', async () => {
  configureForTest(dev.url, dev.projectKey);
  appExporter.reset();
  const appTracer = trace.getTracer("app");
  let ourSpanId = "";
  const ours = observe({ name: "shared-ours" }, async () => {
    appTracer.startActiveSpan("app-http", (s) => s.end());
    ourSpanId = trace.getActiveSpan()!.spanContext().spanId;
    return currentTraceUuid();
  });
  const uuid = await ours();
  await flush();
  expect((trace.getTracerProvider() as unknown as { getDelegate?: () => unknown }).getDelegate?.() ?? trace.getTracerProvider()).toBe(appProvider);
  const http = appExporter.getFinishedSpans().find((s) => s.name === "app-http")!;
  // One trace: the app's span is a descendant of ours (its backend gets a parent it never sees:
  // the documented price of "shared"; add EvaltraceSpanProcessor to the app's provider to see
  // the app's spans in our traces instead).
  expect(http.parentSpanContext?.spanId).toBe(ourSpanId);
  expect(dev.state.traces[uuid!]!.spans.map((s) => s.name)).toEqual(["shared-ours"]);
});
