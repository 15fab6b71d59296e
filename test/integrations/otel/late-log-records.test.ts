import type { Span } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { EvaltraceLogRecordProcessor, EvaltraceSpanProcessor, flush, shutdown, stats } from "../../../src/index.js";
import { configureForTest } from "../../helpers/sdk.js";

// A GenAI span is read by its convention once, when it ends, with the content log records it
// had by then; records emitted in its context after it ended (an instrumentation that logs the
// choice once the stream is drained, say) are still read with them when the span is sent.
let dev: DevServer;
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter()), new EvaltraceSpanProcessor({ metricCollection: "answers" })] });
const tracer = provider.getTracer("app");
const records = new EvaltraceLogRecordProcessor();
const chat = { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.system": "openai" };
const uuidOf = (t: string) => `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;

function emit(span: Span, eventName: string, body: unknown): void {
  records.onEmit({ eventName, body, spanContext: span.spanContext() });
}

function storedSpan(span: Span) {
  const stored = dev.state.traces[uuidOf(span.spanContext().traceId)];
  return stored?.spans.find((s) => s.name === "chat gpt-4o");
}

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey, { maxTraceDurationMillis: 300 });
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

describe("content log records of a GenAI span", () => {
  it("those emitted before it ended: its input and output, and the online-evaluation test case", async () => {
    const span = tracer.startSpan("chat gpt-4o", { attributes: chat });
    emit(span, "gen_ai.user.message", { content: "Where is my order?" });
    emit(span, "gen_ai.choice", { index: 0, finish_reason: "stop", message: { content: "It ships tomorrow." } });
    span.end();
    expect(await flush()).toMatchObject({ ok: true });
    expect(storedSpan(span)).toMatchObject({
      type: "llm",
      input: [{ role: "user", content: "Where is my order?" }],
      output: "It ships tomorrow.",
      metricCollection: "answers",
      llmTestCase: { input: "Where is my order?", actualOutput: "It ships tomorrow." },
      integration: "OpenTelemetry GenAI",
    });
    expect(stats().openTraces).toBe(0);
  });

  it("one emitted after it ended, before it was sent: read with those it had", async () => {
    const span = tracer.startSpan("chat gpt-4o", { attributes: chat });
    emit(span, "gen_ai.user.message", { content: "Is it raining?" });
    span.end();
    emit(span, "gen_ai.choice", {
      index: 0,
      finish_reason: "tool_calls",
      message: { content: "Let me look.", tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
    });
    expect(await flush()).toMatchObject({ ok: true });
    expect(storedSpan(span)).toMatchObject({
      type: "llm",
      input: [{ role: "user", content: "Is it raining?" }],
      output: 'Let me look.\nweather({"city":"Oslo"})',
      toolsCalled: [{ name: "weather", inputParameters: { city: "Oslo" } }],
      llmTestCase: { input: "Is it raining?", actualOutput: 'Let me look.\nweather({"city":"Oslo"})' },
    });
  });

  it("all emitted after it ended: read when it is sent", async () => {
    const span = tracer.startSpan("chat gpt-4o", { attributes: chat });
    span.end();
    emit(span, "gen_ai.user.message", { content: "Late question" });
    emit(span, "gen_ai.choice", { index: 0, message: { content: "Late answer" } });
    expect(await flush()).toMatchObject({ ok: true });
    expect(storedSpan(span)).toMatchObject({ input: [{ role: "user", content: "Late question" }], output: "Late answer" });
  });

  it("none: nothing read from records, and none left held", async () => {
    const span = tracer.startSpan("chat gpt-4o", { attributes: { ...chat, "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi" } });
    span.end();
    expect(await flush()).toMatchObject({ ok: true });
    const stored = storedSpan(span);
    expect(stored).toMatchObject({ input: [{ role: "user", content: "hi" }] });
    expect(stored?.output).toBeUndefined();
  });
});
