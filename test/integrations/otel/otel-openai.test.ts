import { logs } from "@opentelemetry/api-logs";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { LoggerProvider } from "@opentelemetry/sdk-logs";
import type OpenAIType from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvaltraceLogRecordProcessor, flush } from "../../../src/index.js";
import { nothingLeftOpen, openAiScenario, requireCjs, startBridge, traceNamed } from "./bridge.js";
import { expectOpenAiTree } from "./openai-instrumentations.js";

// The official @opentelemetry/instrumentation-openai: model and tokens on the span, the messages
// as GenAI log records, which EvaltraceLogRecordProcessor on the app's LoggerProvider correlates.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let OpenAI: typeof OpenAIType;
beforeAll(async () => {
  bridge = await startBridge();
  logs.setGlobalLoggerProvider(new LoggerProvider({ processors: [new EvaltraceLogRecordProcessor()] }));
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation({ captureMessageContent: true })] });
  OpenAI = requireCjs("openai");
});
afterAll(() => bridge.close());

describe("OpenTelemetry's own OpenAI instrumentation, with its log records", () => {
  it("lands every call with its messages (from the log records) in the observe() agent's trace", async () => {
    await openAiScenario(new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 }), "otel-agent");
    expect(await flush()).toMatchObject({ ok: true });
    expectOpenAiTree(traceNamed(bridge.dev, "otel-agent"), "otel-agent", "OpenTelemetry GenAI", [...Array(4).fill("chat gpt-4o-mini"), "chat error-400"]);
    expect(nothingLeftOpen()).toBe(true);
  });
});
