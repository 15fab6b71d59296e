import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { Client, runExperiment, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

// The emulator judging through an OpenAI-compatible endpoint (the fake server as the judge)
// scores a run's cases in the background: runExperiment waits for the verdicts instead of
// counting every case as not judged.
let dev: DevServer;
let judge: FakeOpenAI;
let client: Client;
beforeAll(async () => {
  // Judges 9/10 when the answer mentions shipping, else 2/10, a little slowly.
  judge = await startFakeOpenAI({
    reply: async (r) => {
      await new Promise((done) => setTimeout(done, 300));
      const prompt = JSON.stringify(r.body.messages);
      return JSON.stringify({ score: /ships in/i.test(prompt) ? 9 : 2, reason: "checked" });
    },
  });
  dev = await startDevServer({ port: 0, judgeUrl: judge.url, judgeModel: "judge-model" });
  configureForTest(dev.url, dev.projectKey);
  client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
  await client.metrics.create({ name: "Mentions shipping", criteria: "Does the answer say when it ships?", evaluationParams: ["actualOutput"], multiTurn: false });
  await client.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Mentions shipping" }, threshold: 0.5 }] });
});
afterAll(async () => {
  await client.close();
  await shutdown(0);
  await dev.close();
  await judge.close();
});

describe("runExperiment with an emulator that judges through an endpoint", () => {
  it("waits for the background verdicts: 2 passed and 1 failed, none counted as not judged", async () => {
    const goldens = [{ input: "order 1?" }, { input: "order 2?" }, { input: "refund?" }];
    const { summary } = await runExperiment({ goldens, task: (g) => (g.input.startsWith("order") ? "It ships in 2 days." : "No idea."), metricCollection: "support", client, output: null });
    expect(summary.metrics).toMatchObject([{ name: "Mentions shipping", passed: 2, failed: 1, errored: 0, notJudged: 0, passRate: 2 / 3, meanScore: (0.9 + 0.9 + 0.2) / 3, minScore: 0.2 }]);
  });
});
