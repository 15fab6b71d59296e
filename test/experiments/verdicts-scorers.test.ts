import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, type ExperimentOutput, observe, runExperiment, type Scorer, type SingleTurnGolden, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

// The verdict states a release gate needs (passed, failed, errored, not judged), the scores in
// the result, the app's own scorers and trials, against the emulator in strict mode.
let dev: DevServer;
let down: DevServer;
let bare: DevServer;
let clients: Client[] = [];
beforeAll(async () => {
  // Scores 0.9 when the output mentions shipping, 0.2 otherwise; fails on "boom" (a judge error).
  dev = await startDevServer({
    port: 0,
    strict: true,
    judge: ({ testCase }) => {
      const out = String((testCase as { actualOutput?: string }).actualOutput);
      if (out.includes("boom")) throw new Error("cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9");
      return { score: /ship/i.test(out) ? 0.9 : 0.2, reason: /ship/i.test(out) ? "says when it ships" : "no shipping date" };
    },
  });
  // A judge that is down for every case.
  down = await startDevServer({
    port: 0,
    strict: true,
    judge: () => {
      throw new Error("cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9");
    },
  });
  bare = await startDevServer({ port: 0, strict: true });
  for (const server of [dev, down, bare]) {
    const client = new Client({ apiKey: server.projectKey, baseUrl: server.url, maxRetries: 0 });
    await client.metrics.create({ name: "Mentions shipping", criteria: "Does it say when it ships?", evaluationParams: ["actualOutput"], multiTurn: false });
    await client.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Mentions shipping" }, threshold: 0.5, includeReason: true }] });
    clients.push(client);
  }
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  clients = [];
  await shutdown(0);
  await Promise.all([dev.close(), down.close(), bare.close()]);
});

function sink(): ExperimentOutput & { text: () => string } {
  const parts: string[] = [];
  return { isTTY: false, write: (s: string) => parts.push(s), text: () => parts.join("") };
}

const goldens: SingleTurnGolden[] = [{ input: "order 1?" }, { input: "order 2?" }, { input: "refund?" }, { input: "explode?" }];
const task = (g: SingleTurnGolden) => (g.input.startsWith("order") ? "It ships in 2 days." : g.input === "explode?" ? "boom" : "No idea.");

describe("runExperiment verdicts and scores (emulator, strict)", () => {
  it("gives each result its metric verdicts with score, threshold, reason, and counts an errored judge apart from failed and not judged", async () => {
    const client = clients[0]!;
    const { results, summary } = await runExperiment({ goldens, task, metricCollection: "support", client, output: null });
    expect(results.map((r) => r.metrics)).toEqual([
      [{ name: "Mentions shipping", state: "passed", score: 0.9, threshold: 0.5, success: true, reason: "says when it ships", error: null, source: "service" }],
      [{ name: "Mentions shipping", state: "passed", score: 0.9, threshold: 0.5, success: true, reason: "says when it ships", error: null, source: "service" }],
      [{ name: "Mentions shipping", state: "failed", score: 0.2, threshold: 0.5, success: false, reason: "no shipping date", error: null, source: "service" }],
      [{ name: "Mentions shipping", state: "errored", score: null, threshold: 0.5, success: null, reason: null, error: "cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9", source: "service" }],
    ]);
    expect(summary.metrics).toEqual([
      {
        name: "Mentions shipping",
        source: "service",
        passed: 2,
        failed: 1,
        errored: 1,
        notJudged: 0,
        passRate: 2 / 3,
        meanScore: (0.9 + 0.9 + 0.2) / 3,
        minScore: 0.2,
        errors: ["cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9"],
        notJudgedReasons: [],
      },
    ]);
  });

  it("counts every case errored (not not-judged) when the judge is down, with the error once", async () => {
    const { summary } = await runExperiment({ goldens, task, metricCollection: "support", client: clients[1]!, output: null });
    expect(summary.metrics[0]).toMatchObject({ passed: 0, failed: 0, errored: 4, notJudged: 0, passRate: null, errors: ["cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9"] });
  });

  it("says why a metric was not judged: no judge configured", async () => {
    const { summary, results } = await runExperiment({ goldens: goldens.slice(0, 1), task, metricCollection: "support", client: clients[2]!, output: null });
    expect(results[0]!.metrics[0]).toMatchObject({ state: "notJudged", notJudgedReason: "no judge configured (the emulator without a judge answers NOT_JUDGED)" });
    expect(summary.metrics[0]).toMatchObject({ notJudged: 1, errored: 0, notJudgedReasons: ["no judge configured (the emulator without a judge answers NOT_JUDGED)"] });
  });

  it("prints mean and min per metric, the errors once, and the first failing cases with input, output, score, reason or the task's error", async () => {
    const out = sink();
    const failing = (g: SingleTurnGolden) => {
      if (g.input === "refund?") throw new Error("model down");
      return task(g);
    };
    await runExperiment({ goldens, task: failing, metricCollection: "support", client: clients[0]!, output: out, identifier: "printed" });
    const text = out.text();
    expect(text).toMatch(/ +passed +failed +errored +not judged +pass rate +mean +min/);
    expect(text).toMatch(/Mentions shipping +2 +1 +1 +0 +66\.7% +0\.90 +0\.90/);
    expect(text).toContain("note: Mentions shipping: errored: cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9");
    expect(text).toContain('golden 2: input "refund?"\n    task error: the task threw: model down');
    expect(text).toContain('golden 3: input "explode?"\n    output "boom"\n    Mentions shipping: errored: cannot reach the judge');
  });
});

describe("runExperiment scorers of the app's own", () => {
  it("runs each scorer in-process on every case with the test case and the span tree, beside the service's metric", async () => {
    const seen: { input: string; tools: string[] }[] = [];
    const usesLookup: Scorer = ({ input, trace }) => {
      const tools = (trace?.spans ?? []).filter((s) => s.type === "tool").map((s) => s.name);
      seen.push({ input, tools });
      return { name: "Looked it up", score: tools.includes("lookup_order") ? 1 : 0, reason: `tools: ${tools.join(", ") || "none"}` };
    };
    const exact: Scorer = ({ actualOutput, expectedOutput }) => ({ name: "Exact", score: actualOutput === expectedOutput ? 1 : 0, threshold: 1 });
    const lookup = observe({ type: "tool", name: "lookup_order" }, async (id: string) => ({ id, status: "shipped" }));
    const agent = async (g: SingleTurnGolden) => {
      if (g.input.startsWith("order")) await lookup(g.input);
      return task(g);
    };
    const gs = [{ input: "order 1?", expectedOutput: "It ships in 2 days." }, { input: "refund?", expectedOutput: "Refunds take a week." }];
    const { results, summary } = await runExperiment({ goldens: gs, task: agent, metricCollection: "support", client: clients[0]!, output: null, scorers: [usesLookup, exact] });
    expect(seen.sort((a, b) => a.input.localeCompare(b.input))).toEqual([
      { input: "order 1?", tools: ["lookup_order"] },
      { input: "refund?", tools: [] },
    ]);
    expect(results[0]!.metrics.map((m) => [m.name, m.state, m.score, m.source])).toEqual([
      ["Mentions shipping", "passed", 0.9, "service"],
      ["Looked it up", "passed", 1, "scorer"],
      ["Exact", "passed", 1, "scorer"],
    ]);
    expect(results[1]!.metrics.find((m) => m.name === "Looked it up")).toMatchObject({ state: "failed", score: 0, threshold: 0.5, reason: "tools: none" });
    expect(summary.metrics.map((m) => [m.name, m.source, m.passed, m.failed, m.meanScore])).toEqual([
      ["Mentions shipping", "service", 1, 1, (0.9 + 0.2) / 2],
      ["Looked it up", "scorer", 1, 1, 0.5],
      ["Exact", "scorer", 1, 1, 0.5],
    ]);
  });

  it("makes a scorer that throws or returns no score an errored verdict, never a crash", async () => {
    const throws: Scorer = async function brittle({ input }) {
      if (input === "refund?") throw new TypeError("no judge model");
      return { name: "Brittle", score: 1 };
    };
    const outOfRange: Scorer = () => ({ name: "Seven", score: 7 });
    const { results, summary } = await runExperiment({ goldens: goldens.slice(1, 3), task, metricCollection: "support", client: clients[0]!, output: null, scorers: [throws, outOfRange] });
    expect(results[1]!.metrics.find((m) => m.name === "Brittle")).toMatchObject({ state: "errored", error: "the scorer threw: no judge model", source: "scorer" });
    const brittle = summary.metrics.find((m) => m.name === "Brittle")!;
    expect([brittle.passed, brittle.errored]).toEqual([1, 1]);
    // A scorer that never returned a name is named after its function, else by position.
    expect(summary.metrics.find((m) => m.name === "outOfRange")).toMatchObject({ errored: 2, errors: ["scorer Seven returned score 7; a score is a number from 0 to 1"] });
  });

  it("runs each golden `trials` times, each its own trace, and reports each golden's mean and spread", async () => {
    let calls = 0;
    const flaky = (g: SingleTurnGolden) => (g.input === "order 1?" && calls++ % 2 === 1 ? "No idea." : task(g));
    const { results, summary } = await runExperiment({ goldens: goldens.slice(0, 2), task: flaky, metricCollection: "support", client: clients[0]!, output: null, trials: 2, concurrency: 1 });
    expect(results.map((r) => [r.goldenIndex, r.trial])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ]);
    expect(new Set(results.map((r) => r.traceUuid)).size).toBe(4);
    expect(summary).toMatchObject({ total: 2, cases: 4, trials: 2, sent: 4 });
    const [first, second] = summary.goldens;
    expect(first!.metrics[0]).toMatchObject({ meanScore: (0.9 + 0.2) / 2, minScore: 0.2, maxScore: 0.9, passed: 1, failed: 1 });
    expect(first!.metrics[0]!.stdDev).toBeCloseTo(0.35, 10);
    expect(second!.metrics[0]).toMatchObject({ meanScore: 0.9, stdDev: 0, passed: 2 });
  });
});
