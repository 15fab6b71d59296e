import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, runExperiment, shutdown } from "../../src/index.js";
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from "../helpers/fault-proxy.js";
import { configureForTest } from "../helpers/sdk.js";

// The first answer of each request an experiment makes is lost after the emulator stored (or
// read) it: each evaluate chunk is still stored once, and the pulls still read what was pushed.
let dev: DevServer;
let proxy: FaultProxy;
let client: Client;
const seen = new Set<string>();
/** The kind of a request: its method and path without the query; evaluate runs are one kind per chunk (the idempotency key). */
const kindOf = (r: ProxiedRequest) => (r.url.startsWith("/v1/evaluate") ? `${r.method} evaluate ${String(r.headers["idempotency-key"])}` : `${r.method} ${r.url.split("?")[0]}`);
const faulted: string[] = [];
beforeAll(async () => {
  dev = await startDevServer({ port: 0, strict: true, judge: () => ({ score: 1 }) });
  const setup = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
  await setup.metrics.create({ name: "Helpful", criteria: "Is it helpful?", evaluationParams: ["actualOutput"], multiTurn: false });
  await setup.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Helpful" } }] });
  await setup.datasets.push({ alias: "faq", goldens: Array.from({ length: 5 }, (_, i) => ({ input: `question ${i}` })) });
  await setup.prompts.push({ alias: "system", text: "Answer {question}" });
  await setup.close();
  // Every request's first answer of its kind is dropped after the emulator handled it.
  proxy = await startFaultProxy(dev.url, (_n, r) => {
    if (r.url.startsWith("/v1/traces") || r.url.startsWith("/_dev/")) return undefined;
    const kind = kindOf(r);
    if (seen.has(kind)) return undefined;
    seen.add(kind);
    faulted.push(kind.startsWith("POST evaluate") ? "POST /v1/evaluate" : kind);
    return "store-then-reset";
  });
  configureForTest(dev.url, dev.projectKey);
  client = new Client({ apiKey: dev.projectKey, baseUrl: proxy.url });
});
afterAll(async () => {
  await client.close();
  await shutdown(0);
  await proxy.close();
  await dev.close();
});

describe("an experiment whose requests lose their first answer", () => {
  it("stores each evaluate chunk once and reads the pulled dataset and prompt", async () => {
    const prompt = await client.prompts.pull("system");
    expect(prompt.text).toBe("Answer {question}");
    const { testRunId, summary } = await runExperiment({
      identifier: "lossy",
      dataset: "faq",
      metricCollection: "support",
      task: (g) => `answer to ${"input" in g ? g.input : g.scenario}`,
      chunkSize: 2,
      client,
      output: null,
    });
    expect(faulted.sort()).toEqual(["GET /v1/datasets/faq", "GET /v1/metric-collections", "GET /v1/prompts/system/commits/latest", "POST /v1/evaluate", "POST /v1/evaluate", "POST /v1/evaluate"].sort());
    const runs = dev.state.testRuns.filter((r) => r.identifier === "lossy");
    expect(runs.map((r) => r.testCases.length)).toEqual([2, 2, 1]);
    expect(summary.testRunIds).toEqual(runs.map((r) => r.id));
    expect(testRunId).toBe(runs[0]!.id);
    expect(summary.metrics[0]).toMatchObject({ passed: 5, errored: 0, notJudged: 0 });
  });
});
