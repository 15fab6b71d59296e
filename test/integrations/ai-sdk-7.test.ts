import { createRequire } from "node:module";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkHook } from "../../src/auto/hooks/ai-sdk.js";
import { autoState } from "../../src/auto/state.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { EvaltraceSpanProcessor, flush, shutdown } from "../../src/index.js";
import { node22Installed, node22Missing, requireNode22 } from "../helpers/node22.js";
import { runsHere, runtimeName } from "../helpers/skips.js";
import { configureForTest } from "../helpers/sdk.js";
import { type Ai, aiSdkScenarios, type AiSdkRun } from "./ai-sdk-scenarios.js";

// AI SDK 7 (`ai` 7 as the `ai-v7` alias, `@ai-sdk/openai` 4), the major users install today:
// telemetry through `registerTelemetry(new OpenTelemetry())` of `@ai-sdk/otel` on the app's
// global provider, which has the EvaltraceSpanProcessor; evaltrace's zero-code hook applied to
// the package as the module hook applies it when `ai` loads. ai 7 needs Node 22: on older Node
// this file says so and skips (`npm run test:runtimes` runs it).
const major = Number(process.versions.node.split(".")[0]);
const supported =
  runsHere(major >= 22 && !("Bun" in globalThis), "test/integrations/ai-sdk-7.test.ts", `ai 7 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`) &&
  runsHere(node22Installed, "test/integrations/ai-sdk-7.test.ts", node22Missing);
const requireCjs = createRequire(import.meta.url);

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let current: AiSdkRun;

beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }));
  configureForTest(dev.url, dev.projectKey);
  autoState().enabled.add("ai");
  const ai: Ai = aiSdkHook.onLoad!(requireNode22("ai-v7"));
  const { OpenTelemetry } = requireNode22("@ai-sdk/otel");
  ai.registerTelemetry(new OpenTelemetry());
  const { createOpenAI } = requireNode22("ai-sdk-openai-4");
  const openai = createOpenAI({ apiKey: "sk-test", baseURL: fake.url });
  current = { ai, chat: () => openai.chat("gpt-4o-mini"), embedding: () => openai.embeddingModel("text-embedding-3-small"), z: requireCjs("zod"), dev };
});
afterAll(async () => {
  if (!supported) return;
  autoState().enabled.delete("ai");
  await shutdown(0);
  await fake.close();
  await dev.close();
});

describe.skipIf(!supported)("AI SDK 7 (ai 7, @ai-sdk/otel, zero-code hook)", () => {
  aiSdkScenarios(() => current);

  it("@ai-sdk/otel's optional ai.* attributes (usage, provider metadata) leave its model calls llm spans, with their output and tokens", async () => {
    const { ai, dev } = current;
    const { OpenTelemetry } = requireNode22("@ai-sdk/otel");
    const marker = "supplemental";
    await ai.generateText({ model: current.chat(), prompt: `When? (${marker})`, experimental_telemetry: { integrations: [new OpenTelemetry({ usage: true, providerMetadata: true })] } });
    await flush();
    const [t] = Object.values(dev.state.traces).filter((x) => JSON.stringify(x.spans.map((s) => s.input)).includes(marker));
    expect(t).toBeDefined();
    const llm = t!.spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ output: FAKE_REPLY, inputTokenCount: 11, outputTokenCount: 4, integration: "OpenTelemetry GenAI" });
  });
});
