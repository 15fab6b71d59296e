import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, EvaltraceError, type MetricInput, ServiceError, ValidationError } from "../../src/index.js";
import { startRecorder } from "../helpers/recorder.js";
import { memoryLogger } from "../helpers/sdk.js";

let dev: DevServer;
let requests: string[];
let client: Client;
let now = Date.parse("2026-06-01T00:00:00Z");
beforeEach(async () => {
  requests = [];
  now = Date.parse("2026-06-01T00:00:00Z");
  dev = await startDevServer({ port: 0, plan: "team", clock: () => now, log: (line) => requests.push(line) });
  client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await dev.close();
});

/** Asserts that `fn` throws a ValidationError naming `field`, and that nothing reached the service. */
async function rejectedLocally(fn: () => Promise<unknown>, field: string | RegExp) {
  const before = requests.length;
  const err = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  expect(err).toBeInstanceOf(EvaltraceError);
  expect((err as ValidationError).field).toMatch(field);
  expect(requests.length).toBe(before);
}

const politeness: MetricInput = { name: "Politeness", criteria: "Is it polite?", evaluationParams: ["actualOutput"], multiTurn: false };

describe("metrics", () => {
  it("creates, batch-creates, updates and lists", async () => {
    const { id } = await client.metrics.create(politeness);
    const { ids } = await client.metrics.createMany([{ name: "Warmth", evaluationSteps: ["Read the reply"], multiTurn: true }]);
    const batch = await client.metrics.batchCreate([{ ...politeness, name: "Brevity" }]);
    expect(ids).toHaveLength(1);
    expect(batch.ids).toHaveLength(1);
    await client.metrics.update(id, { criteria: "Is it very polite?" });
    const list = await client.metrics.list();
    expect(list.find((m) => m.id === id)).toMatchObject({ criteria: "Is it very polite?" });
    expect(list.some((m) => m.name === "Answer Relevancy")).toBe(true);
  });

  it("rejects before sending what the spec rejects", async () => {
    await rejectedLocally(() => client.metrics.create({ name: "X", multiTurn: false } as never), /^body$/);
    await rejectedLocally(() => client.metrics.create({ name: "X", criteria: "c", multiTurn: false } as never), "body.evaluationParams");
    await rejectedLocally(() => client.metrics.create({ name: "X", criteria: "c", multiTurn: true, evaluationParams: ["input"] } as never), "body.evaluationParams");
    await rejectedLocally(() => client.metrics.createMany([politeness, politeness]), "body.metrics[1]");
    await rejectedLocally(() => client.metrics.update("id", { multiTurn: true } as never), "body.multiTurn");
    await rejectedLocally(() => client.metrics.update("id", { evaluationParams: [] as never }), "body.evaluationParams");
  });

  it("turns server rejections into ServiceError with status and path, never the key", async () => {
    await client.metrics.create(politeness);
    const err = (await client.metrics.create(politeness).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 409, method: "POST", path: "/v1/metrics", isRetryable: false, code: "service" });
    expect(err.message).toContain("already exists");
    expect(err.message).not.toContain(dev.projectKey);
    const notFound = (await client.metrics.update("missing", { criteria: "x" }).catch((e: unknown) => e)) as ServiceError;
    expect(notFound.status).toBe(404);
  });
});

describe("metric collections", () => {
  it("creates (always returning an id), updates, lists, and adds or removes one metric keeping the rest", async () => {
    const { id } = await client.metricCollections.create({ name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Bias" } }] });
    expect(id).toEqual(expect.any(String));
    await client.metricCollections.addMetric(id, { metric: { name: "Toxicity" }, threshold: 0.8 });
    await client.metricCollections.addMetric(id, { metric: { name: "Bias" }, threshold: 0.3 });
    let qa = (await client.metricCollections.list()).find((c) => c.id === id)!;
    expect(qa.metricSettings.map((s) => [s.metric.name, s.threshold])).toEqual([
      ["Toxicity", 0.8],
      ["Bias", 0.3],
    ]);
    await client.metricCollections.removeMetric(id, "Toxicity");
    await client.metricCollections.update(id, { name: "qa2" });
    qa = (await client.metricCollections.list()).find((c) => c.id === id)!;
    expect(qa).toMatchObject({ name: "qa2", metricSettings: [{ metric: { name: "Bias" } }] });
  });

  it("rejects locally: kind change, bad thresholds, a metric listed twice; on the server: unknown metrics", async () => {
    await rejectedLocally(() => client.metricCollections.update("id", { multiTurn: true } as never), "body.multiTurn");
    await rejectedLocally(() => client.metricCollections.create({ name: "c", multiTurn: false, metricSettings: [{ metric: { name: "Bias" }, threshold: 2 }] }), "body.metricSettings[0].threshold");
    await rejectedLocally(
      () => client.metricCollections.create({ name: "c", multiTurn: false, metricSettings: [{ metric: { name: "Bias" } }, { metric: { name: "Bias" } }] }),
      "body.metricSettings[1].metric.name",
    );
    const err = (await client.metricCollections.create({ name: "c", multiTurn: true, metricSettings: [{ metric: { name: "Bias" } }] }).catch((e: unknown) => e)) as ServiceError;
    expect(err.status).toBe(400);
  });
});

describe("evaluate", () => {
  it("runs single-turn and conversational test cases with hyperparameters and an identifier", async () => {
    await client.metricCollections.create({ name: "qa", multiTurn: false });
    await client.metricCollections.create({ name: "conv", multiTurn: true });
    const { testRunId } = await client.evaluate.run({
      metricCollection: "qa",
      testCases: [{ input: "q", actualOutput: "a", retrievalContext: ["doc"] }],
      hyperparameters: { model: "gpt-4o", temperature: 0 },
      identifier: "nightly",
    });
    expect(dev.state.testRuns.find((r) => r.id === testRunId)).toMatchObject({ identifier: "nightly", hyperparameters: { model: "gpt-4o" } });
    const conv = await client.evaluate.run({ metricCollection: "conv", testCases: [{ turns: [{ role: "user", content: "hi" }] }] });
    expect(conv.testRunId).toEqual(expect.any(String));
  });

  it("rejects mixed or incomplete test cases before sending", async () => {
    await rejectedLocally(
      () => client.evaluate.run({ metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a" }, { turns: [{ role: "user", content: "x" }] }] as never }),
      "body.testCases[1]",
    );
    await rejectedLocally(() => client.evaluate.run({ metricCollection: "qa", testCases: [{ input: "q" }] as never }), "body.testCases[0].actualOutput");
    await rejectedLocally(() => client.evaluate.run({ metricCollection: "qa", testCases: [] }), "body.testCases");
  });

  it("calls the offline evaluations directly", async () => {
    await client.metricCollections.create({ name: "qa", multiTurn: false });
    await fetch(`${dev.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey },
      body: JSON.stringify({ uuid: "t", startTime: "2026-01-01T00:00:00Z", endTime: "2026-01-01T00:00:01Z", input: "q" }),
    });
    await client.evaluate.trace("t", { metricCollection: "qa" });
    expect(dev.state.jobs).toMatchObject([{ target: "trace", targetId: "t", metricCollection: "qa" }]);
    await expect(client.evaluate.thread("none", { metricCollection: "qa" })).rejects.toMatchObject({ status: 404 });
  });
});

describe("prompts", () => {
  it("pushes text and messages prompts to branches", async () => {
    const text = await client.prompts.push({ alias: "greet", text: "Hello {name}" });
    expect(text).toMatchObject({ promptId: expect.any(String), hash: expect.any(String), deprecated: false, link: expect.stringContaining("greet") });
    const messages = await client.prompts.push({
      alias: "greet",
      branch: "experiment",
      messages: [{ role: "system", content: "Be brief" }],
      modelSettings: { provider: "CUSTOM", temperature: 0 },
      outputType: "SCHEMA",
      outputSchema: { name: "Out", fields: [{ name: "text", type: "STRING" }] },
    });
    expect(dev.state.prompts.greet!.branches.experiment).toEqual([text.hash, messages.hash]);
  });

  it("rejects text with messages, a schema without SCHEMA, and bad enums before sending", async () => {
    await rejectedLocally(() => client.prompts.push({ alias: "p", text: "t", messages: [{ role: "user", content: "c" }] } as never), /^body$/);
    await rejectedLocally(() => client.prompts.push({ alias: "p", text: "t", outputType: "SCHEMA" } as never), "body.outputSchema");
    await rejectedLocally(() => client.prompts.push({ alias: "p", text: "t", interpolationType: "PERCENT" as never }), "body.interpolationType");
  });
});

describe("datasets", () => {
  it("pushes large lists in chunks, reporting progress", async () => {
    const goldens = Array.from({ length: 1234 }, (_, i) => ({ input: `q${i}`, expectedOutput: `a${i}` }));
    const progress: number[] = [];
    const result = await client.datasets.push({ alias: "big", goldens, finalized: false }, { chunkSize: 500, onProgress: (p) => progress.push(p.pushed) });
    expect(result).toMatchObject({ pushed: 1234, requests: 3, datasetId: expect.any(String), deprecated: false });
    expect(progress).toEqual([500, 1000, 1234]);
    expect(dev.state.datasets.big!.unversioned).toHaveLength(1234);
    expect(dev.state.datasets.big!.unversioned.every((g) => g.finalized === false)).toBe(true);
  });

  it("checks every golden before the first request, and says how far a failed push got", async () => {
    const goldens = [{ input: "a" }, { scenario: "s" }] as never;
    await rejectedLocally(() => client.datasets.push({ alias: "x", goldens }), "body.goldens[1]");
    await rejectedLocally(() => client.datasets.push({ alias: "x", version: "v1", goldens: [{ input: "a" }] }), "body.version");
    await client.datasets.push({ alias: "kind", goldens: [{ scenario: "s" }] });
    const err = (await client.datasets.push({ alias: "kind", goldens: [{ input: "a" }] }).catch((e: unknown) => e)) as ServiceError;
    expect(err.status).toBe(400);
  });
});

describe("organization API keys", () => {
  it("rotates with a grace period; both values work until it ends; update deactivates", async () => {
    const org = new Client({ apiKey: dev.orgKey, baseUrl: dev.url, maxRetries: 0, logger: memoryLogger() });
    const rotated = await org.apiKeys.rotate(dev.orgKeyId, { gracePeriodInHours: 2 });
    expect(rotated.shadowValue).toMatch(/^svc_local_org_/);
    const logger = memoryLogger();
    const oldClient = new Client({ apiKey: dev.orgKey, baseUrl: dev.url, maxRetries: 0, logger });
    const newClient = new Client({ apiKey: rotated.shadowValue!, baseUrl: dev.url, maxRetries: 0 });
    expect(await oldClient.apiKeys.update(dev.orgKeyId, { valid: true })).toMatchObject({ valid: true, deprecated: false });
    expect(logger.lines.some((l) => l.startsWith("warn:") && l.includes("being replaced"))).toBe(true);
    expect((await newClient.apiKeys.update(dev.orgKeyId, { valid: true })).valid).toBe(true);
    now += 2 * 3_600_000;
    await expect(oldClient.apiKeys.update(dev.orgKeyId, { valid: true })).rejects.toMatchObject({ status: 401 });
    expect((await newClient.apiKeys.update(dev.orgKeyId, { valid: true })).shadowValue).toBeNull();
    await rejectedLocally(() => org.apiKeys.rotate(dev.orgKeyId, { gracePeriodInHours: -1 }), "body.gracePeriodInHours");
    await rejectedLocally(() => org.apiKeys.rotate(1.5, {}), "path");
    for (const c of [org, oldClient, newClient]) await c.close();
  });
});

it("logs a deprecated /v2 endpoint once", async () => {
  const recorder = await startRecorder(() => ({ status: 200, body: { success: true, data: { promptId: "p", hash: "h" }, link: "l", deprecated: true } }));
  const logger = memoryLogger();
  const c = new Client({ apiKey: "svc_local_proj_x", baseUrl: recorder.url, logger });
  const r = await c.prompts.push({ alias: "a", text: "t" });
  await c.prompts.push({ alias: "a", text: "t2" });
  expect(r.deprecated).toBe(true);
  expect(logger.lines.filter((l) => l.includes("deprecated"))).toHaveLength(1);
  await c.close();
  await recorder.close();
});

it("refuses to send without an API key", async () => {
  const saved = process.env.EVALTRACE_API_KEY;
  delete process.env.EVALTRACE_API_KEY;
  try {
    const c = new Client({ baseUrl: dev.url });
    await expect(c.metrics.list()).rejects.toMatchObject({ code: "configuration" });
  } finally {
    if (saved !== undefined) process.env.EVALTRACE_API_KEY = saved;
  }
});
