import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, EvaltraceSpanProcessor, evaluateTrace, flush, observe, shutdown, updateCurrentTrace } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { captureTraces, matchers } from "../../src/testing/index.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { configureForTest, type memoryLogger } from "../helpers/sdk.js";

expect.extend(matchers);

let dev: DevServer;
let proxy: FaultProxy;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let openai: OpenAI;
let logger: ReturnType<typeof memoryLogger>;
// The app's own OpenTelemetry setup, with our processor in it.
const tracer = new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }).getTracer("app");

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  // Every request the SDK makes goes through the proxy, which counts it.
  proxy = await startFaultProxy(dev.url, () => undefined);
  fake = await startFakeOpenAI();
  logger = configureForTest(proxy.url, dev.projectKey);
  openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await proxy.close();
  await dev.close();
});

const support = observe({ type: "agent", name: "support" }, async (question: string) => {
  // A span of another instrumentation, through the app's OpenTelemetry.
  tracer.startActiveSpan("execute_tool lookup_order", { attributes: { "gen_ai.tool.name": "lookup_order", "gen_ai.operation.name": "execute_tool" } }, (span) => {
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
  });
  const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }] });
  return r.choices[0]!.message.content;
});

describe("captureTraces with an API key configured and the emulator running", () => {
  it("captures observe(), wrapOpenAI (against the fake) and foreign OpenTelemetry spans, and sends the emulator nothing", async () => {
    const capture = captureTraces();
    expect(await support("When do orders ship?")).toBe("Orders ship in 2 days.");
    expect((await flush()).ok).toBe(true);
    capture.stop();
    expect(proxy.counts.requests).toBe(0);
    expect(Object.keys(dev.state.traces)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    expect(capture).toHaveSpan({ type: "agent", name: "support", output: "Orders ship in 2 days." });
    expect(capture).toHaveSpan({
      type: "llm",
      name: "openai.chat.completions",
      integration: "OpenAI",
      model: "gpt-4o-mini-2024-07-18",
      input: [{ role: "user", content: "When do orders ship?" }],
      inputTokenCount: 11,
      outputTokenCount: 4,
      parent: { type: "agent", name: "support" },
    });
    expect(capture).toHaveChildSpan({ name: "support" }, { type: "tool", name: "lookup_order" });
    expect(capture).toHaveSpansInOrder([{ type: "agent" }, { type: "tool" }, { type: "llm" }]);
    expect(capture).toHaveNoErroredSpans();
  });

  it("stop() restores normal export: the next trace reaches the emulator", async () => {
    const capture = captureTraces();
    await support("captured");
    capture.stop();
    let uuid = "";
    await observe({ name: "after" }, async () => {
      uuid = currentTraceUuid()!;
    })();
    expect((await flush()).ok).toBe(true);
    expect(Object.keys(dev.state.traces)).toEqual([uuid]);
    expect(capture.traces().map((t) => t.name)).toEqual(["support"]);
  });

  it("while capturing, an offline evaluation is not sent and says why", async () => {
    const capture = captureTraces();
    let uuid = "";
    await observe({ name: "evaluated" }, async () => {
      uuid = currentTraceUuid()!;
    })();
    const outcome = await evaluateTrace(uuid, { metricCollection: "answers" });
    capture.stop();
    expect(outcome).toEqual({ status: "failed", error: expect.stringContaining("evaltrace/testing is capturing traces") });
    expect(capture).toHaveSpan({ name: "evaluated" });
    expect((await flush()).ok).toBe(true);
    expect(dev.state.traces[uuid]).toBeUndefined();
  });

  it("a trace the app drops is taken out of the capture", async () => {
    const capture = captureTraces();
    await observe({ name: "kept" }, async () => {})();
    await observe({ name: "dropped" }, async () => {
      updateCurrentTrace({ drop: true });
    })();
    capture.stop();
    expect(capture.traces().map((t) => t.name)).toEqual(["kept"]);
  });

  it("a trace that started while capturing and ends after stop() is neither captured nor sent, and a warning says so", async () => {
    const before = proxy.counts.requests;
    const capture = captureTraces();
    let finish!: () => void;
    const running = observe({ name: "left running" }, () => new Promise<void>((r) => (finish = r)))();
    capture.stop();
    finish();
    await running;
    expect((await flush()).ok).toBe(true);
    expect(capture.traces()).toEqual([]);
    expect(proxy.counts.requests).toBe(before);
    expect(logger.lines.some((l) => l.includes("ended after their capture stopped"))).toBe(true);
  });
});
