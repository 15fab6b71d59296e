import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { Client, type ExperimentOutput, type MultiTurnGolden, observe, runExperiment, ServiceError, type SingleTurnGolden, shutdown, ValidationError } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let openai: OpenAI;
let client: Client;
/** Scores 1 when the actual output mentions shipping, else 0 (the emulator's judge function). */
const judged: unknown[] = [];
beforeAll(async () => {
  dev = await startDevServer({
    port: 0,
    plan: "team",
    judge: ({ testCase }) => {
      judged.push(testCase);
      return { score: /ship/i.test(String((testCase as { actualOutput?: string }).actualOutput)) ? 1 : 0, reason: "keyword" };
    },
  });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
  client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
  await client.metrics.create({ name: "Mentions shipping", criteria: "Does it talk about shipping?", evaluationParams: ["actualOutput"], multiTurn: false });
  await client.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Mentions shipping" }, threshold: 0.5 }] });
  await client.metricCollections.create({ name: "chats", multiTurn: true, metricSettings: [{ metric: { name: "Turn Relevancy" } }] });
});
afterAll(async () => {
  await client.close();
  await shutdown(0);
  await fake.close();
  await dev.close();
});
beforeEach(() => {
  judged.length = 0;
});

/** An output stream that keeps what was written. */
function sink(isTTY = false): ExperimentOutput & { text: () => string } {
  const parts: string[] = [];
  return { isTTY, write: (s: string) => parts.push(s), text: () => parts.join("") };
}

const goldens = (n: number): SingleTurnGolden[] => Array.from({ length: n }, (_, i) => ({ input: `When does order ${i} ship?`, expectedOutput: "In 2 days." }));

/** The real openai package against the fake server, as the app under test. */
const answer = async (golden: SingleTurnGolden) => {
  const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: golden.input }] });
  return r.choices[0]!.message.content ?? "";
};

const runOf = (id: string | undefined) => dev.state.testRuns.find((r) => r.id === id)!;

describe("runExperiment against the emulator (strict)", () => {
  it("runs a real openai task per golden, each its own trace, and posts one test run with the goldens' fields", async () => {
    const out = sink();
    const input: SingleTurnGolden[] = [
      { input: "When do orders ship?", expectedOutput: "In 2 days.", context: ["Orders ship in 2 days."], expectedTools: [{ name: "lookup", description: null as never }] },
      { input: "Do you ship abroad?", comments: "edge" },
    ];
    const { testRunId, results, summary } = await runExperiment({ identifier: "prompt-v2", goldens: input, task: answer, metricCollection: "support", hyperparameters: { model: "gpt-4o-mini", temperature: 0 }, client, output: out });
    const run = runOf(testRunId);
    expect(run).toMatchObject({ identifier: "prompt-v2", metricCollection: "support", hyperparameters: { model: "gpt-4o-mini", temperature: 0 } });
    expect(run.testCases).toEqual([
      { input: "When do orders ship?", actualOutput: "Orders ship in 2 days.", expectedOutput: "In 2 days.", context: ["Orders ship in 2 days."], expectedTools: [{ name: "lookup" }] },
      { input: "Do you ship abroad?", actualOutput: "Orders ship in 2 days.", comments: "edge" },
    ]);
    expect(results.map((r) => [r.golden.input, r.actualOutput, r.error])).toEqual([
      ["When do orders ship?", "Orders ship in 2 days.", undefined],
      ["Do you ship abroad?", "Orders ship in 2 days.", undefined],
    ]);
    const uuids = results.map((r) => r.traceUuid!);
    expect(new Set(uuids).size).toBe(2);
    for (const [i, uuid] of uuids.entries()) {
      const trace = dev.state.traces[uuid]!;
      expect(trace.fields).toMatchObject({ name: "prompt-v2", input: input[i]!.input, output: "Orders ship in 2 days.", metadata: { "evaltrace.experiment": "prompt-v2", "evaltrace.experiment.golden": i } });
      expect(trace.spans.filter((s) => s.type === "llm")).toHaveLength(1);
      if (i === 0) expect(trace.fields).toMatchObject({ expectedOutput: "In 2 days.", context: ["Orders ship in 2 days."], expectedTools: [{ name: "lookup" }] });
    }
    expect(summary).toMatchObject({ total: 2, sent: 2, testRunIds: [testRunId], tasks: { passed: 2, failed: 0, passRate: 1 }, resultsAvailable: true });
    expect(summary.metrics).toMatchObject([{ name: "Mentions shipping", passed: 2, failed: 0, errored: 0, notJudged: 0, passRate: 1, meanScore: 1, minScore: 1 }]);
    expect(out.text()).toMatch(/Mentions shipping\s+2\s+0\s+0\s+0\s+100\.0%\s+1\.00\s+1\.00/);
  });

  it("runs each golden as a new trace even when called inside an observed span", async () => {
    let results: { traceUuid: string | undefined }[] = [];
    await observe({ name: "outer" }, async () => {
      ({ results } = await runExperiment({ goldens: goldens(2), task: answer, metricCollection: "support", client, output: null }));
    })();
    for (const r of results) expect(dev.state.traces[r.traceUuid!]!.spans.some((s) => s.name === "outer")).toBe(false);
  });

  it("never runs more tasks at once than concurrency", async () => {
    let running = 0;
    let most = 0;
    const task = async (g: SingleTurnGolden) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return `answer to ${g.input}`;
    };
    const { summary } = await runExperiment({ goldens: goldens(12), task, metricCollection: "support", concurrency: 3, client, output: null });
    expect(most).toBe(3);
    expect(summary.sent).toBe(12);
  });

  it("a throwing task or an unusable output is a failed case, not a failed run: the others are sent and the trace is errored", async () => {
    const task = async (g: SingleTurnGolden, { index }: { index: number }) => {
      if (index === 1) throw new Error("model down");
      if (index === 2) return 42 as unknown as string;
      return `ships: ${g.input}`;
    };
    const { testRunId, results, summary } = await runExperiment({ goldens: goldens(4), task, metricCollection: "support", client, output: null });
    expect(results[1]!.error).toBe("the task threw: model down");
    expect(results[2]!.error).toMatch(/^the task returned number; return the actual output as a string, or \{ actualOutput/);
    expect(runOf(testRunId).testCases).toHaveLength(2);
    expect(summary.tasks).toMatchObject({ passed: 2, failed: 2, passRate: 0.5 });
    // Failed tasks count as failed for every metric.
    expect(summary.metrics[0]).toMatchObject({ passed: 2, failed: 2, passRate: 0.5 });
    for (const i of [1, 2]) expect(dev.state.traces[results[i]!.traceUuid!]!.spans.find((s) => s.name === "experiment")).toMatchObject({ status: "ERRORED" });
    expect(dev.state.traces[results[0]!.traceUuid!]!.spans.find((s) => s.name === "experiment")).toMatchObject({ status: "SUCCESS" });
  });

  it("after an abort starts no task and sends what finished", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const task = async (_g: SingleTurnGolden, { index, signal }: { index: number; signal: AbortSignal }) => {
      seen.push(index);
      if (index === 2) {
        controller.abort();
        // A task that honours the signal stops; it is not waited for either way.
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
      }
      return "ships";
    };
    const { testRunId, results, summary } = await runExperiment({ goldens: goldens(6), task, metricCollection: "support", concurrency: 1, signal: controller.signal, client, output: null });
    expect(seen).toEqual([0, 1, 2]);
    expect(runOf(testRunId).testCases).toHaveLength(2);
    expect(results.slice(2).every((r) => r.aborted === true && r.error === "aborted before it finished")).toBe(true);
    expect(summary.tasks).toMatchObject({ passed: 2, failed: 4, aborted: 4 });
  });

  it("sends a large run in chunks of chunkSize, each a test run under the same identifier", async () => {
    const { testRunId, summary } = await runExperiment({ identifier: "big", goldens: goldens(10), task: () => "ships", metricCollection: "support", chunkSize: 4, client, output: null });
    expect(summary.testRunIds).toHaveLength(3);
    expect(testRunId).toBe(summary.testRunIds[0]);
    expect(summary.testRunIds.map((id) => runOf(id).testCases.length)).toEqual([4, 4, 2]);
    expect(summary.testRunIds.every((id) => runOf(id).identifier === "big")).toBe(true);
    expect(summary.metrics[0]).toMatchObject({ passed: 10, notJudged: 0 });
  });

  it("fills toolsCalled from the task's tool spans (name, description, input, output), in call order", async () => {
    const lookup = observe({ type: "tool", name: "lookup_order", description: "Finds an order" }, async (q: { orderId: string }) => ({ status: "shipped", id: q.orderId }));
    const refund = observe({ type: "tool", name: "refund" }, async (amount: number) => `refunded ${amount}`);
    const task = observe({ type: "agent", name: "agent" }, async (g: SingleTurnGolden) => {
      await lookup({ orderId: "A-1" });
      await refund(5);
      return `done: ${g.input}`;
    });
    const { testRunId } = await runExperiment({ goldens: goldens(1), task, metricCollection: "support", client, output: null });
    expect(runOf(testRunId).testCases[0]).toMatchObject({
      toolsCalled: [
        { name: "lookup_order", description: "Finds an order", inputParameters: { orderId: "A-1" }, output: { status: "shipped", id: "A-1" } },
        { name: "refund", inputParameters: { input: 5 }, output: "refunded 5" },
      ],
    });
  });

  it("turns multi-turn goldens and the turns the task returns into conversational test cases", async () => {
    const chats: MultiTurnGolden[] = [{ scenario: "asks about shipping", expectedOutcome: "knows the date", userDescription: "a customer" }];
    const task = async (g: MultiTurnGolden) => [
      { role: "user" as const, content: g.scenario },
      { role: "assistant" as const, content: await answer({ input: g.scenario }) },
    ];
    const { testRunId, results, summary } = await runExperiment({ goldens: chats, task, metricCollection: "chats", client, output: null });
    expect(runOf(testRunId)).toMatchObject({ multiTurn: true });
    expect(runOf(testRunId).testCases).toEqual([
      { scenario: "asks about shipping", expectedOutcome: "knows the date", userDescription: "a customer", turns: [{ role: "user", content: "asks about shipping" }, { role: "assistant", content: "Orders ship in 2 days." }] },
    ]);
    expect(results[0]!.actualOutput).toBe("Orders ship in 2 days.");
    expect(summary.metrics.map((m) => m.name)).toEqual(["Turn Relevancy"]);
  });

  it("pulls a dataset by alias and version through the client", async () => {
    await client.datasets.push({ alias: "exp-ds", goldens: [{ input: "old" }] });
    await client.datasets.push({ alias: "exp-ds", version: "2", goldens: [{ input: "v2 question", expectedOutput: "v2" }] });
    await client.datasets.push({ alias: "exp-ds", version: "3", goldens: [{ input: "v3 question" }] });
    const { testRunId } = await runExperiment({ dataset: { alias: "exp-ds", version: "2" }, task: () => "ships", metricCollection: "support", client, output: null });
    expect(runOf(testRunId).testCases).toEqual([{ input: "v2 question", actualOutput: "ships", expectedOutput: "v2" }]);
    const latest = await runExperiment({ dataset: "exp-ds", task: (g: SingleTurnGolden) => g.input, metricCollection: "support", client, output: null });
    expect(runOf(latest.testRunId).testCases).toEqual([{ input: "v3 question", actualOutput: "v3 question" }]);
  });

  it("rejects bad options with errors naming them, before any task runs", async () => {
    let ran = 0;
    const task = () => {
      ran++;
      return "x";
    };
    const cases: [unknown, RegExp][] = [
      [{ goldens: goldens(1), task, metricCollection: "support", concurency: 2 }, /options\.concurency is not an option/],
      [{ goldens: goldens(1), dataset: "a", task, metricCollection: "support" }, /exactly one of options\.goldens/],
      [{ goldens: [], task, metricCollection: "support" }, /options\.goldens must be a non-empty list/],
      [{ goldens: goldens(1), task: "x", metricCollection: "support" }, /options\.task must be a function/],
      [{ goldens: goldens(1), task, metricCollection: "support", concurrency: 0 }, /options\.concurrency must be a positive integer/],
      [{ goldens: [{ input: "a" }, { scenario: "b" }], task, metricCollection: "support" }, /options\.goldens\[1\]: single-turn and multi-turn goldens cannot be mixed/],
      [{ goldens: [{ scenario: "b" }], task, metricCollection: "support" }, /collection support is single-turn; these goldens are multi-turn/],
      [{ goldens: goldens(1), task, metricCollection: "nope" }, /no metric collection named nope/],
    ];
    for (const [options, message] of cases) {
      const err = await runExperiment({ ...(options as object), client, output: null } as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toMatch(message);
    }
    const unknown = await runExperiment({ dataset: "no-such-dataset", task, metricCollection: "support", client, output: null }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ServiceError);
    expect((unknown as ServiceError).status).toBe(404);
    expect(ran).toBe(0);
  });

  it("reports progress as a line every 5% off a terminal, and as a bar redrawn in place on one", async () => {
    const lines = sink(false);
    await runExperiment({ identifier: "p", goldens: goldens(40), task: () => "ships", metricCollection: "support", concurrency: 4, client, output: lines });
    const progress = lines.text().split("\n").filter((l) => /^p: \d+\/40 /.test(l));
    expect(progress).toHaveLength(20);
    expect(progress.at(-1)).toBe("p: 40/40 (100%)");
    const bar = sink(true);
    await runExperiment({ identifier: "b", goldens: goldens(3), task: () => "ships", metricCollection: "support", client, output: bar });
    expect(bar.text()).toContain("\rb [##############################] 3/3\n");
  });
});

describe("runExperiment against an emulator without a judge", () => {
  it("counts the cases as not judged, with a null pass rate", async () => {
    const plain = await startDevServer({ port: 0 });
    const c = new Client({ apiKey: plain.projectKey, baseUrl: plain.url, maxRetries: 0 });
    try {
      await c.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Answer Relevancy" } }] });
      const { summary } = await runExperiment({ goldens: goldens(3), task: () => "ships", metricCollection: "support", client: c, output: null });
      expect(summary.metrics).toMatchObject([{ name: "Answer Relevancy", passed: 0, failed: 0, errored: 0, notJudged: 3, passRate: null, meanScore: null, minScore: null }]);
      expect(summary.resultsAvailable).toBe(true);
    } finally {
      await c.close();
      await plain.close();
    }
  });
});
