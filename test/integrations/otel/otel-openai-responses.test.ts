import { logs } from "@opentelemetry/api-logs";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { LoggerProvider } from "@opentelemetry/sdk-logs";
import type OpenAIType from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvaltraceLogRecordProcessor, flush, observe, stats } from "../../../src/index.js";
import { configureForTest } from "../../helpers/sdk.js";
import { llmSpans, nothingLeftOpen, outline, requireCjs, startBridge, traceNamed } from "./bridge.js";

// Issue 31: the official @opentelemetry/instrumentation-openai records a Responses call's
// messages as one `gen_ai.client.inference.operation.details` log record each way, the messages
// in its attributes (`gen_ai.input.messages`, `gen_ai.output.messages`), not in its body.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let OpenAI: typeof OpenAIType;
beforeAll(async () => {
  bridge = await startBridge();
  // Every span here ends: no trace should need force-ending, however loaded the machine is.
  configureForTest(bridge.dev.url, bridge.dev.projectKey, { maxTraceDurationMillis: 30_000 });
  logs.setGlobalLoggerProvider(new LoggerProvider({ processors: [new EvaltraceLogRecordProcessor()] }));
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation({ captureMessageContent: true })] });
  OpenAI = requireCjs("openai");
});
afterAll(() => bridge.close());

describe("OpenTelemetry's own OpenAI instrumentation, Responses API", () => {
  it("stores a Responses call's reply text and messages, read from its operation-details log records", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 });
    const agent = observe({ type: "agent", name: "otel-responses-agent" }, async () => {
      await client.responses.create({ model: "gpt-4o-mini", instructions: "You are a support bot.", input: "When do orders ship?" });
    });
    await agent();
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "otel-responses-agent");
    expect(outline(t)).toEqual(["agent otel-responses-agent", "  llm chat gpt-4o-mini"]);
    expect(llmSpans(t)[0]).toMatchObject({
      model: expect.stringContaining("gpt-4o-mini"),
      inputTokenCount: 9,
      outputTokenCount: 4,
      input: [
        { role: "system", content: "You are a support bot." },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      status: "SUCCESS",
    });
    expect(stats().tracesForceEnded).toBe(0);
    expect(nothingLeftOpen()).toBe(true);
  });

  it("stores a streamed Responses call's reply text and a Responses tool call as toolsCalled", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 });
    const lookup = { type: "function" as const, name: "lookup_order", description: "Finds an order", strict: false, parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } };
    const agent = observe({ type: "agent", name: "otel-responses-stream" }, async () => {
      const stream = await client.responses.create({ model: "gpt-4o-mini", input: "and returns?", stream: true });
      for await (const _ of stream) {
        // consumed by the app
      }
      await client.responses.create({ model: "gpt-4o-mini", input: "Where is order A-1001? use lookup_order", tools: [lookup] });
    });
    await agent();
    expect(await flush()).toMatchObject({ ok: true });
    const [streamed, toolTurn] = llmSpans(traceNamed(bridge.dev, "otel-responses-stream"));
    expect(streamed).toMatchObject({ input: [{ role: "user", content: "and returns?" }], output: "Orders ship in 2 days.", status: "SUCCESS" });
    expect(toolTurn!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
    expect(nothingLeftOpen()).toBe(true);
  });
});
