import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";

let dev: DevServer;
let api: ReturnType<typeof apiFor>;
const scores: Record<string, number> = { Bias: 0.05, Toxicity: 0.7, Hallucination: 0.5, "Answer Relevancy": 0.9, Faithfulness: 0.2 };
beforeAll(async () => {
  dev = await startDevServer({ port: 0, judge: ({ metric }) => ({ score: scores[metric.name] ?? 0 }) });
  api = apiFor(dev);
});
afterAll(() => dev.close());

it("passes lower-is-better metrics (Bias, Toxicity, Hallucination) at or under the threshold, the others at or over it", async () => {
  const names = Object.keys(scores);
  await api("POST", "/v1/metric-collections", { name: "all", multiTurn: false, metricSettings: names.map((name) => ({ metric: { name }, threshold: 0.5 })) });
  const r = await api("POST", "/v1/evaluate", { metricCollection: "all", testCases: [{ input: "q", actualOutput: "a" }] });
  expect(r.status).toBe(200);
  const results = (dev.state.testRuns[0]!.results![0] as { metricsData: { metric: string; success: boolean }[] }).metricsData;
  expect(Object.fromEntries(results.map((m) => [m.metric, m.success]))).toEqual({
    Bias: true, // 0.05 <= 0.5
    Toxicity: false, // 0.7 > 0.5
    Hallucination: true, // 0.5 <= 0.5
    "Answer Relevancy": true, // 0.9 >= 0.5
    Faithfulness: false, // 0.2 < 0.5
  });
});

it("in strict mode, a lower-is-better metric passes only at 0", async () => {
  await api("POST", "/v1/metric-collections", { name: "strict", multiTurn: false, metricSettings: [{ metric: { name: "Bias" }, strictMode: true }] });
  await api("POST", "/v1/evaluate", { metricCollection: "strict", testCases: [{ input: "q", actualOutput: "a" }] });
  const results = (dev.state.testRuns.at(-1)!.results![0] as { metricsData: { success: boolean }[] }).metricsData;
  expect(results[0]!.success).toBe(false);
});
