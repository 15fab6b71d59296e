import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import type OpenAIType from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush } from "../../../src/index.js";
import { nothingLeftOpen, openAiScenario, requireCjs, startBridge, traceNamed } from "./bridge.js";
import { expectOpenAiTree } from "./openai-instrumentations.js";

// The real @arizeai/openinference-instrumentation-openai, registered as its README says, on the
// app's provider that has EvaltraceSpanProcessor beside its own exporter.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let OpenAI: typeof OpenAIType;
beforeAll(async () => {
  bridge = await startBridge();
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });
  OpenAI = requireCjs("openai");
});
afterAll(() => bridge.close());

describe("OpenInference OpenAI instrumentation", () => {
  it("lands every call, typed and readable, in the trace of the observe() agent around it", async () => {
    await openAiScenario(new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 }), "oi-agent");
    await new Promise((r) => setTimeout(r, 600)); // past maxTraceDurationMillis, for spans never ended
    expect(await flush()).toMatchObject({ ok: true });
    expectOpenAiTree(traceNamed(bridge.dev, "oi-agent"), "oi-agent", "OpenInference", Array(5).fill("OpenAI Chat Completions"));
    expect(nothingLeftOpen()).toBe(true);
  });
});
