import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, type DevServerOptions, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, type FakeRequest, startFakeOpenAI } from "../../src/fakes/index.js";
import { apiFor } from "../helpers/api.js";

const T0 = "2026-06-01T10:00:00.000000Z";
const T1 = "2026-06-01T10:00:01.000000Z";
const lists = { baseSpans: [], llmSpans: [], retrieverSpans: [], agentSpans: [], toolSpans: [] };

/** The user message the emulator sent the judge. */
const promptOf = (r: FakeRequest) => String((r.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")?.content);

let dev: DevServer | undefined;
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await dev?.close();
  await fake?.close();
  dev = undefined;
  fake = undefined;
});

/** The fake OpenAI server replying as a judge with `reply(request)`, and the emulator (strict) judging with it. */
async function setUp(reply: (r: FakeRequest) => string | undefined | Promise<string | undefined>, options: DevServerOptions = {}) {
  fake = await startFakeOpenAI({ reply });
  dev = await startDevServer({ port: 0, strict: true, judgeUrl: fake.url, judgeModel: "judge-model", ...options });
  const api = apiFor(dev);
  const metric = {
    name: "Correctness",
    multiTurn: false,
    criteria: "The actual output states the same facts as the expected output.",
    evaluationSteps: ["Compare the facts of the actual output with the expected output.", "Penalise contradictions."],
    evaluationParams: ["input", "actualOutput", "expectedOutput"],
  };
  expect((await api("POST", "/v1/metrics", metric)).status).toBe(200);
  const collection = { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Correctness" }, threshold: 0.7 }, { metric: { name: "Bias" } }] };
  expect((await api("POST", "/v1/metric-collections", collection)).status).toBe(200);
  return api;
}

const judgeReply = (score: number, reason = "same facts") => () => JSON.stringify({ score, reason });

describe("a test run judged by the judge endpoint", () => {
  it("answers before judging, with the run PENDING, then records each custom metric's score 0..10 as 0..1, its reason and success against the threshold", async () => {
    const api = await setUp((r) => (promptOf(r).includes("2 days") ? JSON.stringify({ score: 9, reason: "same facts" }) : '```json\n{"score": 3, "reason": "contradicts"}\n```'));
    const r = await api("POST", "/v1/evaluate", {
      metricCollection: "qa",
      identifier: "nightly",
      testCases: [
        { input: "When do orders ship?", actualOutput: "In 2 days.", expectedOutput: "Orders ship in 2 days." },
        { input: "Refunds?", actualOutput: "Never.", expectedOutput: "Within 5 days." },
      ],
    });
    expect(r.status).toBe(200);
    const run = () => dev!.state.testRuns.find((x) => x.id === r.body.data!.id)!;
    expect(run().status).toBe("PENDING");
    await dev!.judged();
    expect(run()).toMatchObject({ status: "COMPLETED", identifier: "nightly" });
    const [first, second] = run().results as { metricsData: Record<string, unknown>[] }[];
    expect(first!.metricsData[0]).toEqual({ metric: "Correctness", threshold: 0.7, score: 0.9, reason: "same facts", success: true, strictMode: false });
    expect(second!.metricsData[0]).toMatchObject({ metric: "Correctness", score: 0.3, reason: "contradicts", success: false });
    // A default metric has no definition to send: its result says so rather than inventing a score.
    expect(first!.metricsData[1]).toMatchObject({ metric: "Bias", score: null, success: null, error: expect.stringContaining("default metric") });
  });

  it("sends the metric's criteria, evaluation steps and evaluationParams fields in a G-Eval style prompt asking for JSON", async () => {
    const api = await setUp(judgeReply(8));
    await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "When do orders ship?", actualOutput: "In 2 days.", expectedOutput: "Orders ship in 2 days.", context: ["not read"] }] });
    await dev!.judged();
    expect(fake!.requests).toHaveLength(1);
    const request = fake!.requests[0]!;
    expect(request).toMatchObject({ path: "/chat/completions", body: { model: "judge-model", temperature: 0, response_format: { type: "json_object" } } });
    const prompt = promptOf(request);
    expect(prompt).toContain('metric "Correctness"');
    expect(prompt).toContain("The actual output states the same facts as the expected output.");
    expect(prompt).toContain("1. Compare the facts of the actual output with the expected output.\n2. Penalise contradictions.");
    expect(prompt).toContain("Input:\nWhen do orders ship?");
    expect(prompt).toContain("Actual Output:\nIn 2 days.");
    expect(prompt).toContain("Expected Output:\nOrders ship in 2 days.");
    expect(prompt).not.toContain("not read");
    expect(prompt).toMatch(/"score": a number from 0 to 10/);
  });

  it("makes at most judgeConcurrency calls at once", async () => {
    let inFlight = 0;
    let most = 0;
    const api = await setUp(
      async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        return JSON.stringify({ score: 10, reason: "ok" });
      },
      { judgeConcurrency: 2 },
    );
    await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: Array.from({ length: 6 }, (_, i) => ({ input: `q${i}`, actualOutput: "a", expectedOutput: "a" })) });
    await dev!.judged();
    expect(fake!.requests).toHaveLength(6);
    expect(most).toBe(2);
    expect(dev!.state.testRuns[0]!.status).toBe("COMPLETED");
  });
});

describe("online and offline evaluations judged by the judge endpoint", () => {
  it("judges an online evaluation of a span (metricCollection + llmTestCase at ingestion) after answering the ingest", async () => {
    const api = await setUp(judgeReply(7, "mostly right"));
    const span = { uuid: "s1", name: "answer", startTime: T0, endTime: T1, metricCollection: "qa", llmTestCase: { input: "q", actualOutput: "a", expectedOutput: "a" } };
    expect((await api("POST", "/v1/traces", { uuid: "t1", startTime: T0, endTime: T1, ...lists, llmSpans: [span] })).status).toBe(200);
    expect(dev!.state.jobs[0]).toMatchObject({ trigger: "online", target: "span", targetId: "s1", status: "PENDING" });
    await dev!.judged();
    expect(dev!.state.jobs[0]).toMatchObject({ status: "COMPLETED", results: [{ metric: "Correctness", score: 0.7, reason: "mostly right", success: true }, { metric: "Bias", score: null }] });
  });

  it("judges offline evaluations of a trace (its ingested test case) and of a thread (its turns, with a multi-turn metric and the chatbot role)", async () => {
    const api = await setUp((r) => (promptOf(r).includes("Conversation:") ? JSON.stringify({ score: 6, reason: "stays on topic" }) : JSON.stringify({ score: 2, reason: "wrong" })));
    await api("POST", "/v1/metrics", { name: "Helpful", multiTurn: true, criteria: "The assistant helps the user reach their goal." });
    await api("POST", "/v1/metric-collections", { name: "chat", multiTurn: true, metricSettings: [{ metric: { name: "Helpful" } }] });
    const trace = (uuid: string, input: string, output: string) => ({ uuid, startTime: T0, endTime: T1, ...lists, threadId: "th", input, output });
    await api("POST", "/v1/traces", { ...trace("t1", "hi", "hello"), llmTestCase: { input: "hi", actualOutput: "hello", expectedOutput: "hello there" } });
    await api("POST", "/v1/traces", trace("t2", "ship?", "in 2 days"));
    expect((await api("POST", "/v1/evaluate/traces/t1", { metricCollections: "qa" })).body).toEqual({ success: true });
    expect((await api("POST", "/v1/evaluate/threads/th", { metricCollections: "chat", chatbotRole: "a support bot" })).body).toEqual({ success: true });
    await dev!.judged();
    const [traceJob, threadJob] = dev!.state.jobs;
    expect(traceJob).toMatchObject({ trigger: "offline", target: "trace", status: "COMPLETED", results: [{ metric: "Correctness", score: 0.2, success: false }, { metric: "Bias" }] });
    expect(threadJob).toMatchObject({ trigger: "offline", target: "thread", status: "COMPLETED", results: [{ metric: "Helpful", score: 0.6, reason: "stays on topic", success: true }] });
    const threadPrompt = fake!.requests.map(promptOf).find((p) => p.includes("Conversation:"))!;
    expect(threadPrompt).toContain("user: hi\nassistant: hello\nuser: ship?\nassistant: in 2 days");
    expect(threadPrompt).toContain("Chatbot Role:\na support bot");
  });
});

describe("a judge that fails", () => {
  it("records ERRORED with the endpoint's error when it answers 500; the run is still stored", async () => {
    const api = await setUp(judgeReply(9));
    fake!.failNext(500, { message: "model crashed" });
    const r = await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a", expectedOutput: "a" }] });
    await dev!.judged();
    const run = dev!.state.testRuns.find((x) => x.id === r.body.data!.id)!;
    expect(run.status).toBe("ERRORED");
    expect(run.message).toContain("answered 500");
    expect(run.message).toContain("model crashed");
    expect(run.testCases).toHaveLength(1);
    expect((run.results![0] as { metricsData: unknown[] }).metricsData[0]).toMatchObject({ metric: "Correctness", score: null, success: null, error: expect.stringContaining("model crashed") });
  });

  it("times out a judge that does not answer, records ERRORED, and never holds up ingest meanwhile", async () => {
    const api = await setUp(() => new Promise<string>(() => {}), { judgeTimeoutMillis: 300 });
    const span = { uuid: "s1", name: "answer", startTime: T0, endTime: T1, metricCollection: "qa", llmTestCase: { input: "q", actualOutput: "a", expectedOutput: "a" } };
    await api("POST", "/v1/traces", { uuid: "t1", startTime: T0, endTime: T1, ...lists, llmSpans: [span] });
    // The judge hangs: another trace is still taken at once.
    const started = Date.now();
    expect((await api("POST", "/v1/traces", { uuid: "t2", startTime: T0, endTime: T1, ...lists })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(250);
    expect(dev!.state.jobs[0]!.status).toBe("PENDING");
    await dev!.judged();
    expect(dev!.state.jobs[0]).toMatchObject({ status: "ERRORED", message: expect.stringContaining("did not answer within 300 ms") });
  });

  it("records ERRORED naming the endpoint when nothing listens there, and when the reply has no score", async () => {
    const closed = await startFakeOpenAI();
    const url = closed.url;
    await closed.close();
    fake = await startFakeOpenAI({ reply: () => "I think it is fine." });
    dev = await startDevServer({ port: 0, strict: true, judgeUrl: url, judgeModel: "m" });
    const api = apiFor(dev);
    await api("POST", "/v1/metrics", { name: "C", multiTurn: false, criteria: "c", evaluationParams: ["input", "actualOutput"] });
    await api("POST", "/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "C" } }] });
    await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a" }] });
    await dev.judged();
    expect(dev.state.testRuns[0]).toMatchObject({ status: "ERRORED", message: expect.stringMatching(/cannot reach the judge at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/) });
    await dev.close();
    dev = await startDevServer({ port: 0, strict: true, judgeUrl: fake.url, judgeModel: "m" });
    const api2 = apiFor(dev);
    await api2("POST", "/v1/metrics", { name: "C", multiTurn: false, criteria: "c", evaluationParams: ["input", "actualOutput"] });
    await api2("POST", "/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "C" } }] });
    await api2("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a" }] });
    await dev.judged();
    expect(dev.state.testRuns[0]).toMatchObject({ status: "ERRORED", message: expect.stringContaining('not JSON with a numeric "score": "I think it is fine."') });
  });
});

describe("without a judge", () => {
  it("records test runs and online evaluations as NOT_JUDGED, saying how to judge", async () => {
    dev = await startDevServer({ port: 0, strict: true });
    const api = apiFor(dev);
    await api("POST", "/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Bias" } }] });
    await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a" }] });
    const span = { uuid: "s1", name: "answer", startTime: T0, endTime: T1, metricCollection: "qa", llmTestCase: { input: "q", actualOutput: "a" } };
    await api("POST", "/v1/traces", { uuid: "t1", startTime: T0, endTime: T1, ...lists, llmSpans: [span] });
    await dev.judged();
    expect(dev.judgeEndpoint).toBeUndefined();
    for (const record of [dev.state.testRuns[0]!, dev.state.jobs[0]!]) {
      expect(record.status).toBe("NOT_JUDGED");
      expect(record.message).toContain("--judge-url");
      expect(record.results).toBeUndefined();
    }
  });
});

describe("settings and persistence", () => {
  it("rejects a judge URL without a model, a judge given twice, and a URL that is not http(s)", async () => {
    await expect(startDevServer({ port: 0, judgeUrl: "http://127.0.0.1:1/v1" })).rejects.toThrow("judgeUrl needs judgeModel");
    await expect(startDevServer({ port: 0, judgeUrl: "http://127.0.0.1:1/v1", judgeModel: "m", judge: () => ({ score: 1 }) })).rejects.toThrow("not both");
    await expect(startDevServer({ port: 0, judgeUrl: "file:///x", judgeModel: "m" })).rejects.toThrow("http(s) URL");
  });

  it("takes the judge endpoint from EVALTRACE_DEV_JUDGE_URL and EVALTRACE_DEV_JUDGE_MODEL when the options name none", async () => {
    fake = await startFakeOpenAI();
    process.env.EVALTRACE_DEV_JUDGE_URL = fake.url;
    process.env.EVALTRACE_DEV_JUDGE_MODEL = "env-model";
    try {
      dev = await startDevServer({ port: 0 });
    } finally {
      delete process.env.EVALTRACE_DEV_JUDGE_URL;
      delete process.env.EVALTRACE_DEV_JUDGE_MODEL;
    }
    expect(dev.judgeEndpoint).toBe(`env-model at ${fake.url}/chat/completions`);
  });

  it("keeps a verdict in the data file, and marks one left PENDING by a stop as ERRORED at the next start", async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), "evaltrace-judge-")), "state.jsonl");
    let hang = false;
    const api = await setUp(() => (hang ? new Promise<string>(() => {}) : JSON.stringify({ score: 10, reason: "right" })), { dataFile });
    await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a", expectedOutput: "a" }] });
    await dev!.judged();
    hang = true;
    await api("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a", expectedOutput: "a" }] });
    await dev!.close();
    dev = await startDevServer({ port: 0, strict: true, dataFile });
    expect(dev.state.testRuns.map((r) => r.status)).toEqual(["COMPLETED", "ERRORED"]);
    expect((dev.state.testRuns[0]!.results![0] as { metricsData: unknown[] }).metricsData[0]).toMatchObject({ score: 1, reason: "right" });
    expect(dev.state.testRuns[1]!.message).toContain("stopped before the judge answered");
    await dev.close();
    dev = await startDevServer({ port: 0, strict: true, dataFile });
    expect(dev.state.testRuns.map((r) => r.status)).toEqual(["COMPLETED", "ERRORED"]);
  });
});
