import { logs } from "@opentelemetry/api-logs";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { LoggerProvider, type LogRecordProcessor, type SdkLogRecord } from "@opentelemetry/sdk-logs";
import { afterAll, beforeAll, it } from "vitest";
import { EvaltraceLogRecordProcessor, flush } from "../../../src/index.js";
import { openAiScenario, requireCjs, startBridge } from "./bridge.js";

const which = process.env.WHICH!;
let bridge: Awaited<ReturnType<typeof startBridge>>;
const records: unknown[] = [];
beforeAll(async () => {
  bridge = await startBridge();
  const dump: LogRecordProcessor = { onEmit: (r: SdkLogRecord) => void records.push({ name: r.eventName, attrs: r.attributes, body: r.body }), forceFlush: async () => {}, shutdown: async () => {} };
  logs.setGlobalLoggerProvider(new LoggerProvider({ processors: [dump, new EvaltraceLogRecordProcessor()] }));
  let inst;
  if (which === "oi") inst = new (requireCjs("@arizeai/openinference-instrumentation-openai").OpenAIInstrumentation)();
  if (which === "tl") inst = new (requireCjs("@traceloop/instrumentation-openai").OpenAIInstrumentation)({ traceContent: true });
  if (which === "otel") inst = new (requireCjs("@opentelemetry/instrumentation-openai").OpenAIInstrumentation)({ captureMessageContent: true });
  registerInstrumentations({ instrumentations: [inst] });
});
afterAll(() => bridge.close());
it("dump", async () => {
  const OpenAI = requireCjs("openai");
  await openAiScenario(new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 }), "x");
  await flush();
  const spans = bridge.appExporter.getFinishedSpans();
  const fs = await import("node:fs");
  fs.writeFileSync(`/tmp/tp/${which}.json`, JSON.stringify({ spans: spans.map((s) => ({ name: s.name, attrs: s.attributes, events: s.events })), records }, null, 1));
});
