import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, flush, observe, shutdown, stats, updateCurrentSpan } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

// A span with a metricCollection and no llmTestCase is never evaluated (the service evaluates a
// span from its test case): the app is told once per collection name, and such spans are counted.
let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0, strict: true, judge: () => ({ score: 1 }) });
  const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
  await client.metrics.create({ name: "Helpful", criteria: "Is it helpful?", evaluationParams: ["actualOutput"], multiTurn: false });
  for (const name of ["answers", "summaries"]) await client.metricCollections.create({ name, multiTurn: false, metricSettings: [{ metric: { name: "Helpful" } }] });
  await client.close();
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

describe("metricCollection on a span without a test case", () => {
  it("warns once per collection name, counts every such span in stats(), and the emulator makes no evaluation of them", async () => {
    const logger = configureForTest(dev.url, dev.projectKey);
    const before = stats().spansWithoutTestCase;
    const answer = observe({ name: "answer", metricCollection: "answers" }, async (q: string) => `re: ${q}`);
    const summarize = observe({ name: "summarize", metricCollection: "summaries" }, async (q: string) => `sum: ${q}`);
    const judged = observe({ name: "judged", metricCollection: "answers" }, async (q: string) => {
      updateCurrentSpan({ llmTestCase: { input: q, actualOutput: "yes" } });
      return "yes";
    });
    await answer("a");
    await answer("b");
    await summarize("c");
    await judged("d");
    expect((await flush()).ok).toBe(true);
    const warnings = logger.lines.filter((l) => l.includes("but no llmTestCase"));
    expect(warnings).toEqual([
      'warn: span "answer" has metricCollection "answers" but no llmTestCase, so it is not evaluated: the service evaluates a span from its test case. Set one (observe({ llmTestCase }) or updateCurrentSpan({ llmTestCase: { input, actualOutput } })); later spans of "answers" without one are counted in stats().spansWithoutTestCase, not logged',
      'warn: span "summarize" has metricCollection "summaries" but no llmTestCase, so it is not evaluated: the service evaluates a span from its test case. Set one (observe({ llmTestCase }) or updateCurrentSpan({ llmTestCase: { input, actualOutput } })); later spans of "summaries" without one are counted in stats().spansWithoutTestCase, not logged',
    ]);
    expect(stats().spansWithoutTestCase - before).toBe(3);
    // Only the span with a test case became an evaluation.
    expect(dev.state.jobs.filter((j) => j.metricCollection === "answers" || j.metricCollection === "summaries")).toHaveLength(1);
  });
});
