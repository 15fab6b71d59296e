import { createRequire } from "node:module";
import { afterAll, beforeAll, describe } from "vitest";
import { aiSdkHook } from "../../src/auto/hooks/ai-sdk.js";
import { autoState } from "../../src/auto/state.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { type Ai, aiSdkScenarios, type AiSdkRun } from "./ai-sdk-scenarios.js";

// AI SDK 6 (`ai` 6, `@ai-sdk/openai` 3), the major before the one users install today: its own
// OpenTelemetry spans (`ai.*`), turned on by evaltrace's zero-code hook (applied here to the
// package as the module hook applies it when `ai` loads) and read by the EvaltraceSpanProcessor.
const requireCjs = createRequire(import.meta.url);

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let current: AiSdkRun;

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  autoState().enabled.add("ai");
  const ai: Ai = aiSdkHook.onLoad!(requireCjs("ai"));
  const { createOpenAI } = requireCjs("@ai-sdk/openai");
  const openai = createOpenAI({ apiKey: "sk-test", baseURL: fake.url });
  current = { ai, chat: () => openai.chat("gpt-4o-mini"), embedding: () => openai.textEmbeddingModel("text-embedding-3-small"), z: requireCjs("zod"), dev };
});
afterAll(async () => {
  autoState().enabled.delete("ai");
  await shutdown(0);
  await fake.close();
  await dev.close();
});

describe("AI SDK 6 (ai 6, zero-code hook)", () => {
  aiSdkScenarios(() => current);
});
