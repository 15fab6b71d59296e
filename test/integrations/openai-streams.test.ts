import OpenAI from "openai";
import { afterAll, beforeAll, describe } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { requireNode22, runsWithNode22 } from "../helpers/node22.js";
import { openaiStreamTests, type StreamSuiteContext } from "./openai-streams.js";
import { runtimeName } from "../helpers/skips.js";

// The stream edge cases on openai 6 and openai 7 (openai 7 needs Node 22+: skipped, and said so, on older Node).
const major = Number(process.versions.node.split(".")[0]);
const v7 = runsWithNode22(major >= 22 && !("Bun" in globalThis), "test/integrations/openai-streams.test.ts", `openai 7 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`);

let dev: DevServer;
let fake: FakeOpenAI;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

describe("wrapOpenAI with openai 6: stream edge cases (issue 31)", () => {
  openaiStreamTests("openai6", () => ({ dev, fake, OpenAI: OpenAI as unknown as StreamSuiteContext["OpenAI"] }));
});

describe.skipIf(!v7)("wrapOpenAI with openai 7: stream edge cases (issue 31)", () => {
  openaiStreamTests("openai7", () => ({ dev, fake, OpenAI: requireNode22("openai-v7") }));
});
