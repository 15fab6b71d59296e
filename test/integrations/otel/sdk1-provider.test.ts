import { type Span, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import type { StoredTrace } from "../../../src/devserver/store/store.js";
import { EvaltraceSpanProcessor, flush, observe, shutdown, stats } from "../../../src/index.js";
import { installOtel1, requireOtel1 } from "../../helpers/otel1.js";
import { configureForTest } from "../../helpers/sdk.js";

// An app whose OpenTelemetry setup is SDK 1.x (Firebase Genkit's enableTelemetry builds one):
// its spans have `instrumentationLibrary` and `parentSpanId` where SDK 2's have
// `instrumentationScope` and `parentSpanContext`. The real packages, from test/otel1.

interface Provider1 {
  addSpanProcessor(p: unknown): void;
  getTracer(name: string): Tracer;
  shutdown(): Promise<void>;
}
interface Otel1 {
  BasicTracerProvider: new () => Provider1;
  InMemorySpanExporter: new () => { getFinishedSpans(): { name: string; instrumentationLibrary?: { name: string } }[] };
  SimpleSpanProcessor: new (exporter: unknown) => unknown;
}
interface NodeSdk1 {
  NodeSDK: new (config: { spanProcessors: unknown[]; instrumentations: unknown[] }) => { start(): void; shutdown(): Promise<void> };
}

let dev: DevServer;
let otel1: Otel1;

beforeAll(async () => {
  await installOtel1();
  otel1 = requireOtel1("@opentelemetry/sdk-trace-base") as Otel1;
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey);
}, 300_000);
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

const uuidOf = (traceId: string) => `${traceId.slice(0, 8)}-${traceId.slice(8, 12)}-${traceId.slice(12, 16)}-${traceId.slice(16, 20)}-${traceId.slice(20)}`;

/** GET /chat → chat gpt-4o → POST (HTTP, left out) → execute_tool lookup, as an instrumented app records it. */
function chatRequest(tracer: Tracer): string {
  let traceId = "";
  tracer.startActiveSpan("GET /chat", (http: Span) => {
    traceId = http.spanContext().traceId;
    tracer.startActiveSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.provider.name": "openai" } }, (chat: Span) => {
      tracer.startActiveSpan("POST api.openai.com", (post: Span) => {
        tracer.startActiveSpan("execute_tool lookup", { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup" } }, (tool: Span) => {
          tool.setStatus({ code: SpanStatusCode.OK });
          tool.end();
        });
        post.end();
      });
      chat.setAttributes({ "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 4, "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Tomorrow." }] }]) });
      chat.end();
    });
    http.end();
  });
  return traceId;
}

/** The stored trace of `traceId`, its spans by name with their parents' names. */
function tree(traceId: string): { stored: StoredTrace | undefined; parents: Record<string, string | undefined> } {
  const stored = dev.state.traces[uuidOf(traceId)];
  const parents: Record<string, string | undefined> = {};
  for (const s of stored?.spans ?? []) parents[String(s.name)] = stored!.spans.find((p) => p.uuid === s.parentUuid)?.name as string | undefined;
  return { stored, parents };
}

describe("EvaltraceSpanProcessor on an OpenTelemetry SDK 1.x provider", () => {
  it("a real SDK 1.30 BasicTracerProvider's spans give one nested trace (root → llm → tool, the HTTP span left out), no internal error, the app's exporter unchanged", async () => {
    const provider = new otel1.BasicTracerProvider();
    const appExporter = new otel1.InMemorySpanExporter();
    provider.addSpanProcessor(new otel1.SimpleSpanProcessor(appExporter));
    provider.addSpanProcessor(new EvaltraceSpanProcessor());
    const errorsBefore = stats().internalErrors;
    const traceId = chatRequest(provider.getTracer("app"));
    expect((await flush()).ok).toBe(true);
    expect(stats().internalErrors).toBe(errorsBefore);
    const { stored, parents } = tree(traceId);
    expect(parents).toEqual({ "GET /chat": undefined, "chat gpt-4o": "GET /chat", lookup: "chat gpt-4o" });
    expect(stored!.spans.find((s) => s.name === "chat gpt-4o")).toMatchObject({ type: "llm", model: "gpt-4o", provider: "OpenAI", inputTokenCount: 12, outputTokenCount: 4, output: "Tomorrow." });
    expect(stored!.spans.find((s) => s.name === "lookup")).toMatchObject({ type: "tool" });
    // The app's own exporter got all four spans, as SDK 1.x shapes them.
    expect(appExporter.getFinishedSpans().map((s) => [s.name, s.instrumentationLibrary?.name])).toEqual([
      ["execute_tool lookup", "app"],
      ["POST api.openai.com", "app"],
      ["chat gpt-4o", "app"],
      ["GET /chat", "app"],
    ]);
    await provider.shutdown();
  });

  it("SDK 1.x spans started inside observe() nest under its span, in its trace", async () => {
    const provider = new otel1.BasicTracerProvider();
    provider.addSpanProcessor(new EvaltraceSpanProcessor());
    const tracer = provider.getTracer("app");
    let traceId = "";
    await observe({ name: "handle", type: "agent" }, async () => {
      traceId = trace.getActiveSpan()!.spanContext().traceId;
      tracer.startActiveSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o" } }, (chat: Span) => chat.end());
    })();
    expect((await flush()).ok).toBe(true);
    expect(tree(traceId).parents).toEqual({ handle: undefined, "chat gpt-4o": "handle" });
    await provider.shutdown();
  });

  it("a real NodeSDK 0.57 (SDK 1.30) with the processor in its spanProcessors records the app's GenAI spans as one nested trace", async () => {
    const { NodeSDK } = requireOtel1("@opentelemetry/sdk-node") as NodeSdk1;
    const sdk = new NodeSDK({ spanProcessors: [new EvaltraceSpanProcessor()], instrumentations: [] });
    sdk.start();
    const errorsBefore = stats().internalErrors;
    const traceId = chatRequest(trace.getTracer("app"));
    expect((await flush()).ok).toBe(true);
    expect(stats().internalErrors).toBe(errorsBefore);
    const { stored, parents } = tree(traceId);
    expect(parents).toEqual({ "GET /chat": undefined, "chat gpt-4o": "GET /chat", lookup: "chat gpt-4o" });
    expect(stored!.spans.find((s) => s.name === "chat gpt-4o")).toMatchObject({ type: "llm", inputTokenCount: 12, outputTokenCount: 4 });
    await sdk.shutdown();
  });
});
