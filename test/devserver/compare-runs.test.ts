import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, type FakeRequest, startFakeOpenAI } from "../../src/fakes/index.js";
import { apiFor } from "../helpers/api.js";

let dev: DevServer;
let fake: FakeOpenAI;
let api: ReturnType<typeof apiFor>;

/** The judge scores the actual output: the number in "score N" in it, else 5. */
const reply = (r: FakeRequest) => {
  const prompt = String((r.body.messages as { content: string }[]).at(-1)?.content);
  const n = /Actual Output:\n.*score (\d+)/.exec(prompt)?.[1];
  return JSON.stringify({ score: n === undefined ? 5 : Number(n), reason: `saw ${n ?? "nothing"}` });
};

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply });
  dev = await startDevServer({ port: 0, strict: true, judgeUrl: fake.url, judgeModel: "judge" });
  api = apiFor(dev);
  await api("POST", "/v1/metrics", { name: "Quality", multiTurn: false, criteria: "Good answers.", evaluationParams: ["input", "actualOutput"] });
  await api("POST", "/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Quality" }, threshold: 0.6 }] });
});
afterAll(async () => {
  await dev.close();
  await fake.close();
});

const run = async (identifier: string, cases: [input: string, score: number, name?: string][]) => {
  const r = await api("POST", "/v1/evaluate", { metricCollection: "qa", identifier, testCases: cases.map(([input, score, name]) => ({ input, actualOutput: `answer, score ${score}`, ...(name ? { name } : {}) })) });
  await dev.judged();
  return r.body.data!.id as string;
};

it("matches cases by name, else by input, and lists regressions first (passed → failed, then score down), then improvements, removed, added, unchanged", async () => {
  const base = await run("before", [
    ["steady", 7],
    ["gets worse", 9],
    ["drops below", 8],
    ["gets better", 4],
    ["dropped", 7],
    ["q?", 7, "renamed-input"],
  ]);
  const head = await run("after", [
    ["gets better", 9],
    ["steady", 7],
    ["drops below", 3],
    ["gets worse", 7],
    ["new", 6],
    ["q, reworded?", 8, "renamed-input"],
  ]);
  const r = await api("GET", `/_dev/view/compare?base=${base}&head=${head}`);
  expect(r.status).toBe(200);
  const c = r.body as unknown as {
    base: { identifier: string };
    head: { identifier: string };
    counts: Record<string, number>;
    metrics: { metric: string; base: { passed: number; scored: number }; head: { passed: number; scored: number } }[];
    cases: { key: string; change: string; metrics: { metric: string; delta: number | null; change: string; base: { score: number } | null; head: { score: number } | null }[] }[];
  };
  expect([c.base.identifier, c.head.identifier]).toEqual(["before", "after"]);
  expect(c.cases.map((k) => [k.key, k.change])).toEqual([
    ["drops below", "regressed"], // 0.8 → 0.3: passed → failed, and the largest drop
    ["gets worse", "regressed"], // 0.9 → 0.7: still passes, but lower
    ["gets better", "improved"],
    ["name: renamed-input", "improved"], // matched by name although its input changed
    ["dropped", "removed"],
    ["new", "added"],
    ["steady", "unchanged"],
  ]);
  const drop = c.cases[0]!.metrics[0]!;
  expect(drop).toMatchObject({ metric: "Quality", base: { score: 0.8 }, head: { score: 0.3 }, change: "regressed" });
  expect(drop.delta).toBeCloseTo(-0.5);
  expect(c.counts).toEqual({ regressed: 2, improved: 2, unchanged: 1, added: 1, removed: 1 });
  expect(c.metrics).toEqual([{ metric: "Quality", base: { passed: 5, scored: 6, mean: expect.any(Number) }, head: { passed: 5, scored: 6, mean: expect.any(Number) } }]);
});

it("answers 400 without base or head and 404 for an unknown run", async () => {
  expect((await api("GET", "/_dev/view/compare?head=x")).status).toBe(400);
  expect((await api("GET", "/_dev/view/compare?base=nope&head=nope")).body.error).toContain("no test run with id nope");
});
