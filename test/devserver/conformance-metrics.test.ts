import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";
import { MODES } from "./modes.js";

describe.each(MODES)("$mode mode", ({ strict }) => {
  let dev: DevServer;
  let api: ReturnType<typeof apiFor>;
  beforeEach(async () => {
    dev = await startDevServer({ port: 0, strict, judge: ({ metric }) => ({ score: metric.name === "Bias" ? 0.2 : 0.9, reason: "judged" }) });
    api = apiFor(dev);
  });
  afterEach(() => dev.close());

  const single = (name: string, extra = {}) => ({ name, criteria: "Is it right?", evaluationParams: ["input", "actualOutput"], multiTurn: false, ...extra });
  const multi = (name: string, extra = {}) => ({ name, evaluationSteps: ["Read the turns"], multiTurn: true, ...extra });

  describe("metrics (spec 4.3)", () => {
    it("creates one metric (data.id) or a list (data.ids), and batch-creates", async () => {
      const one = await api("POST", "/v1/metrics", single("Politeness"));
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ success: true, data: { id: expect.any(String) } });
      const list = await api("POST", "/v1/metrics", { metrics: [single("A"), multi("B")] });
      expect((list.body.data!.ids as string[]).length).toBe(2);
      const batch = await api("POST", "/v1/batch-metrics", { metrics: [single("C")] });
      expect((batch.body.data!.ids as string[]).length).toBe(1);
    });

    it("requires criteria and/or evaluationSteps", async () => {
      const r = await api("POST", "/v1/metrics", { name: "X", evaluationParams: ["input"], multiTurn: false });
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("criteria and/or evaluationSteps");
    });

    it("requires evaluationParams for single-turn and refuses them for multi-turn", async () => {
      expect((await api("POST", "/v1/metrics", { name: "X", criteria: "c", multiTurn: false })).body.error).toContain("evaluationParams");
      expect((await api("POST", "/v1/metrics", multi("Y", { evaluationParams: ["input"] }))).status).toBe(400);
      expect((await api("POST", "/v1/metrics", single("Z", { evaluationParams: ["nope"] }))).status).toBe(400);
    });

    it("requires name and multiTurn, and rejects unknown fields", async () => {
      expect((await api("POST", "/v1/metrics", { criteria: "c", evaluationParams: ["input"], multiTurn: false })).body.error).toBe("body.name is required");
      expect((await api("POST", "/v1/metrics", { name: "n", criteria: "c", evaluationParams: ["input"] })).body.error).toBe("body.multiTurn is required");
      expect((await api("POST", "/v1/metrics", single("n", { colour: "red" }))).body.error).toBe("unknown field body.colour");
    });

    it("rejects unknown fields named like built-in object properties (own keys of the shape only)", async () => {
      for (const name of ["constructor", "toString", "hasOwnProperty", "valueOf", "__proto__"]) {
        // JSON text, so that `__proto__` arrives as an own field as a client would send it.
        const r = await api("POST", "/v1/metrics", `{"name":"n-${name}","criteria":"c","evaluationParams":["input"],"multiTurn":false,"${name}":"x"}`);
        expect(r.status, name).toBe(400);
        expect(r.body.error, name).toBe(`unknown field body.${name}`);
      }
      expect(dev.state.metrics.some((m) => m.name.startsWith("n-"))).toBe(false);
    });

    it("keeps (name, multiTurn) unique, default metrics included, and writes nothing of a rejected list (rule 1)", async () => {
      await api("POST", "/v1/metrics", single("Dup"));
      expect((await api("POST", "/v1/metrics", single("Dup"))).status).toBe(409);
      expect((await api("POST", "/v1/metrics", multi("Dup"))).status).toBe(200);
      expect((await api("POST", "/v1/metrics", single("Answer Relevancy"))).status).toBe(409);
      const before = dev.state.metrics.length;
      // Twice in one request is a bad request (400); against what is stored, a conflict (409).
      expect((await api("POST", "/v1/metrics", { metrics: [single("Fresh"), single("Fresh")] })).status).toBe(400);
      expect((await api("POST", "/v1/metrics", { metrics: [single("Fresh"), single("Dup")] })).status).toBe(409);
      expect(dev.state.metrics.length).toBe(before);
    });

    it("lists default metrics of both kinds with the custom ones", async () => {
      await api("POST", "/v1/metrics", single("Mine"));
      const r = await api("GET", "/v1/metrics");
      const metrics = r.body.data!.metrics as { name: string; multiTurn: boolean; id: string }[];
      expect(metrics.find((m) => m.name === "Answer Relevancy")).toMatchObject({ multiTurn: false });
      expect(metrics.find((m) => m.name === "Role Adherence")).toMatchObject({ multiTurn: true });
      expect(metrics.find((m) => m.name === "Mine")!.id).toEqual(expect.any(String));
    });

    it("updates a metric, refusing a kind change (rule 2) and an update that empties required fields (rule 4)", async () => {
      const id = (await api("POST", "/v1/metrics", single("U"))).body.data!.id as string;
      expect((await api("PUT", `/v1/metrics/${id}`, { multiTurn: true })).status).toBe(400);
      expect((await api("PUT", `/v1/metrics/${id}`, { criteria: "" })).body.error).toContain("criteria and/or evaluationSteps");
      expect((await api("PUT", `/v1/metrics/${id}`, { evaluationParams: [] })).body.error).toContain("evaluationParams");
      const ok = await api("PUT", `/v1/metrics/${id}`, { criteria: "Better?", evaluationSteps: ["look"] });
      expect(ok.body).toEqual({ success: true });
      expect(dev.state.metrics.find((m) => m.id === id)).toMatchObject({ criteria: "Better?", evaluationSteps: ["look"] });
      expect((await api("PUT", "/v1/metrics/nope", { criteria: "x" })).status).toBe(404);
    });
  });

  describe("metric collections (spec 4.4)", () => {
    it("answers data.id without metricSettings and only success with them", async () => {
      const bare = await api("POST", "/v1/metric-collections", { name: "c1", multiTurn: false });
      expect(bare.body).toMatchObject({ success: true, data: { id: expect.any(String) } });
      const withSettings = await api("POST", "/v1/metric-collections", { name: "c2", multiTurn: false, metricSettings: [{ metric: { name: "Bias" }, threshold: 0.7 }] });
      expect(withSettings.body).toEqual({ success: true });
    });

    it("applies setting defaults and lists both kinds", async () => {
      await api("POST", "/v1/metric-collections", { name: "s", multiTurn: false, metricSettings: [{ metric: { name: "Bias" } }] });
      await api("POST", "/v1/metric-collections", { name: "m", multiTurn: true });
      const list = (await api("GET", "/v1/metric-collections")).body.data!.metricCollections as { name: string; metricSettings: unknown[] }[];
      expect(list.map((c) => c.name).sort()).toEqual(["m", "s"]);
      expect(list.find((c) => c.name === "s")!.metricSettings[0]).toEqual({ metric: { name: "Bias" }, threshold: 0.5, activated: true, includeReason: true, strictMode: false });
    });

    it("rejects settings naming a missing metric or one of the other kind (rule 3)", async () => {
      const missing = await api("POST", "/v1/metric-collections", { name: "x", multiTurn: false, metricSettings: [{ metric: { name: "Nope" } }] });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toContain("no metric named");
      const wrongKind = await api("POST", "/v1/metric-collections", { name: "x", multiTurn: true, metricSettings: [{ metric: { name: "Bias" } }] });
      expect(wrongKind.status).toBe(400);
      expect(wrongKind.body.error).toContain("single-turn");
    });

    it("keeps (name, multiTurn) unique (rule 1)", async () => {
      await api("POST", "/v1/metric-collections", { name: "same", multiTurn: false });
      expect((await api("POST", "/v1/metric-collections", { name: "same", multiTurn: false })).status).toBe(409);
      expect((await api("POST", "/v1/metric-collections", { name: "same", multiTurn: true })).status).toBe(200);
    });

    it("updates by overwriting, refusing multiTurn (rule 2)", async () => {
      const id = (await api("POST", "/v1/metric-collections", { name: "u", multiTurn: false })).body.data!.id as string;
      expect((await api("PUT", `/v1/metric-collections/${id}`, { multiTurn: true })).status).toBe(400);
      await api("PUT", `/v1/metric-collections/${id}`, { metricSettings: [{ metric: { name: "Bias" } }, { metric: { name: "Toxicity" } }] });
      await api("PUT", `/v1/metric-collections/${id}`, { name: "u2", metricSettings: [{ metric: { name: "Toxicity" } }] });
      const c = dev.state.collections.find((x) => x.id === id)!;
      expect(c.name).toBe("u2");
      expect(c.metricSettings.map((s) => s.metric.name)).toEqual(["Toxicity"]);
      expect((await api("PUT", "/v1/metric-collections/nope", { name: "z" })).status).toBe(404);
    });

    it("accepts the spec's misspellings: /v1/metrics-collections and multiturn", async () => {
      const r = await api("POST", "/v1/metrics-collections", { name: "alias", multiturn: true });
      expect(r.status).toBe(200);
      expect(dev.state.collections.find((c) => c.name === "alias")!.multiTurn).toBe(true);
      expect((await api("GET", "/v1/metrics-collections")).status).toBe(200);
    });

    it("points a collection body sent to /v1/metrics at the right endpoint", async () => {
      const r = await api("POST", "/v1/metrics", { name: "c", multiTurn: false, metricSettings: [] });
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("/v1/metric-collections");
    });
  });

  describe("evaluate (spec 4.5)", () => {
    it("creates a test run and returns its id; judges with the judge given", async () => {
      await api("POST", "/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Bias" } }, { metric: { name: "Toxicity" } }] });
      const r = await api("POST", "/v1/evaluate", {
        metricCollection: "qa",
        testCases: [{ input: "q", actualOutput: "a", expectedOutput: "a" }],
        hyperparameters: { model: "gpt-4o", temperature: 0 },
        identifier: "nightly",
      });
      expect(r.body).toMatchObject({ success: true, data: { id: expect.any(String) } });
      const run = dev.state.testRuns.find((x) => x.id === r.body.data!.id)!;
      expect(run).toMatchObject({ identifier: "nightly", status: "COMPLETED", hyperparameters: { model: "gpt-4o" } });
      const [result] = run.results as { metricsData: { metric: string; success: boolean }[] }[];
      // Bias and Toxicity are lower-is-better: they pass at or under the threshold (0.5).
      expect(result!.metricsData.map((m) => [m.metric, m.success])).toEqual([
        ["Bias", true],
        ["Toxicity", false],
      ]);
    });

    it("runs conversational test cases on multi-turn collections only", async () => {
      await api("POST", "/v1/metric-collections", { name: "single", multiTurn: false });
      await api("POST", "/v1/metric-collections", { name: "conv", multiTurn: true });
      const turns = [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ];
      expect((await api("POST", "/v1/evaluate", { metricCollection: "conv", testCases: [{ turns }] })).status).toBe(200);
      expect((await api("POST", "/v1/evaluate", { metricCollection: "single", testCases: [{ turns }] })).body.error).toContain("single-turn");
      expect((await api("POST", "/v1/evaluate", { metricCollection: "conv", testCases: [{ turns }, { input: "q", actualOutput: "a" }] })).body.error).toContain("mixed");
    });

    it("requires metricCollection and testCases, and a known collection", async () => {
      expect((await api("POST", "/v1/evaluate", { testCases: [{ input: "q", actualOutput: "a" }] })).status).toBe(400);
      expect((await api("POST", "/v1/evaluate", { metricCollection: "x", testCases: [] })).status).toBe(400);
      expect((await api("POST", "/v1/evaluate", { metricCollection: "unknown", testCases: [{ input: "q", actualOutput: "a" }] })).status).toBe(404);
      expect((await api("POST", "/v1/evaluate", { metricCollection: "x", testCases: [{ input: "q" }] })).body.error).toBe("body.testCases[0].actualOutput is required");
    });

    it("says it judged nothing when no judge was given", async () => {
      const plain = await startDevServer({ port: 0, strict });
      const call = apiFor(plain);
      await call("POST", "/v1/metric-collections", { name: "qa", multiTurn: false });
      const r = await call("POST", "/v1/evaluate", { metricCollection: "qa", testCases: [{ input: "q", actualOutput: "a" }] });
      expect(plain.state.testRuns.find((x) => x.id === r.body.data!.id)).toMatchObject({ status: "NOT_JUDGED", message: expect.stringContaining("judge") });
      await plain.close();
    });
  });
});
