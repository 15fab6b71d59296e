import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";
import { MODES } from "./modes.js";

describe.each(MODES)("$mode mode", ({ strict }) => {
  let dev: DevServer;
  let api: ReturnType<typeof apiFor>;
  beforeEach(async () => {
    dev = await startDevServer({ port: 0, strict });
    api = apiFor(dev);
  });
  afterEach(() => dev.close());

  describe("push prompt (spec 4.8)", () => {
    it("creates the prompt and a commit; answers promptId, hash, link and deprecated", async () => {
      const r = await api("POST", "/v2/prompts", { alias: "greet", text: "Hello {name}" });
      expect(r.body).toMatchObject({ success: true, data: { promptId: expect.any(String), hash: expect.any(String) }, link: expect.stringContaining(dev.url), deprecated: false });
      expect(r.body.data!.promptId).not.toBe("greet");
      const commit = dev.state.prompts.greet!.commits[r.body.data!.hash as string]!;
      expect(commit.content.interpolationType).toBe("FSTRING");
      expect(commit.branch).toBe("main");
    });

    it("rejects text and messages together, and neither (rule 5)", async () => {
      const both = await api("POST", "/v2/prompts", { alias: "p", text: "t", messages: [{ role: "user", content: "c" }] });
      expect(both.status).toBe(400);
      expect(both.body).toMatchObject({ success: false, deprecated: false });
      expect((await api("POST", "/v2/prompts", { alias: "p" })).status).toBe(400);
    });

    it("checks message roles, enums, model settings, output schema and tools", async () => {
      expect((await api("POST", "/v2/prompts", { alias: "p", messages: [{ role: "robot", content: "c" }] })).body.error).toContain("role");
      expect((await api("POST", "/v2/prompts", { alias: "p", text: "t", interpolationType: "PERCENT" })).status).toBe(400);
      expect((await api("POST", "/v2/prompts", { alias: "p", text: "t", modelSettings: { reasoningEffort: "EXTREME" } })).status).toBe(400);
      expect((await api("POST", "/v2/prompts", { alias: "p", text: "t", outputType: "SCHEMA" })).body.error).toContain("outputSchema");
      const full = await api("POST", "/v2/prompts", {
        alias: "p",
        messages: [
          { role: "system", content: "You are terse" },
          { role: "user", content: "{{q}}" },
        ],
        interpolationType: "MUSTACHE",
        modelSettings: { provider: "CUSTOM", name: "m", temperature: 0.2, maxTokens: 100, stopSequence: ["\n"], reasoningEffort: "LOW", verbosity: "HIGH" },
        outputType: "SCHEMA",
        outputSchema: { name: "Answer", fields: [{ id: "f1", name: "text", type: "STRING", required: true, parentId: null }] },
        tools: [{ name: "search", mode: "STRICT", structuredSchema: { fields: [{ id: "q", name: "query", type: "STRING", required: true }] } }],
      });
      expect(full.status).toBe(200);
      const commit = Object.values(dev.state.prompts.p!.commits)[0]!;
      expect((commit.content.tools as { id: string }[])[0]!.id).toEqual(expect.any(String));
    });

    it("creates a new branch from main", async () => {
      const m1 = (await api("POST", "/v2/prompts", { alias: "b", text: "v1" })).body.data!.hash as string;
      const d1 = (await api("POST", "/v2/prompts", { alias: "b", text: "v2-dev", branch: "dev" })).body.data!.hash as string;
      const m2 = (await api("POST", "/v2/prompts", { alias: "b", text: "v2" })).body.data!.hash as string;
      const p = dev.state.prompts.b!;
      expect(p.branches.main).toEqual([m1, m2]);
      expect(p.branches.dev).toEqual([m1, d1]);
      expect(p.commits[d1]!.parent).toBe(m1);
      expect(new Set([m1, d1, m2]).size).toBe(3);
    });
  });

  describe("push dataset (spec 4.9)", () => {
    const single = (input: string, extra = {}) => ({ input, expectedOutput: "x", ...extra });
    const multi = (scenario: string) => ({ scenario, turns: [{ role: "user", content: "hi" }] });

    it("creates the dataset with the kind of its goldens; answers id, link, deprecated", async () => {
      const r = await api("POST", "/v2/datasets", { alias: "qa", goldens: [single("a"), single("b")] });
      expect(r.body).toMatchObject({ success: true, data: { id: expect.any(String) }, link: expect.any(String), deprecated: false });
      expect(dev.state.datasets.qa).toMatchObject({ multiTurn: false });
      expect(dev.state.datasets.qa!.unversioned).toHaveLength(2);
      await api("POST", "/v2/datasets", { alias: "conv", goldens: [multi("s")] });
      expect(dev.state.datasets.conv!.multiTurn).toBe(true);
      expect((dev.state.datasets.conv!.unversioned[0]!.turns as { id: string }[])[0]!.id).toEqual(expect.any(String));
    });

    it("rejects mixed kinds in one push and a kind that differs from the dataset's (rule 6)", async () => {
      expect((await api("POST", "/v2/datasets", { alias: "m", goldens: [single("a"), multi("s")] })).body.error).toContain("cannot be mixed");
      await api("POST", "/v2/datasets", { alias: "qa", goldens: [single("a")] });
      expect((await api("POST", "/v2/datasets", { alias: "qa", goldens: [multi("s")] })).body.error).toContain("single-turn");
    });

    it("rejects a version for a dataset that does not exist (rule 3)", async () => {
      const r = await api("POST", "/v2/datasets", { alias: "new", version: "1", goldens: [single("a")] });
      expect(r.status).toBe(400);
      expect(dev.state.datasets.new).toBeUndefined();
    });

    it("needs the Team plan to push to a version (rule 4)", async () => {
      await api("POST", "/v2/datasets", { alias: "qa", goldens: [single("a")] });
      const r = await api("POST", "/v2/datasets", { alias: "qa", version: "1.0", goldens: [single("b")] });
      expect(r.status).toBe(403);
      expect(r.body.error).toContain("Team plan");
    });

    it("pushes onto versions on the Team plan; omitted version means the latest, or unversioned when none", async () => {
      const team = await startDevServer({ port: 0, strict, plan: "team" });
      const call = apiFor(team);
      await call("POST", "/v2/datasets", { alias: "qa", goldens: [single("u")] });
      await call("POST", "/v2/datasets", { alias: "qa", version: "1.2", goldens: [single("a")] });
      await call("POST", "/v2/datasets", { alias: "qa", version: "1.10", goldens: [single("b")] });
      await call("POST", "/v2/datasets", { alias: "qa", goldens: [single("c")] });
      const ds = team.state.datasets.qa!;
      expect(ds.unversioned.map((g) => g.input)).toEqual(["u"]);
      expect(ds.versions["1.2"]!.map((g) => g.input)).toEqual(["a"]);
      expect(ds.versions["1.10"]!.map((g) => g.input)).toEqual(["b", "c"]);
      expect((await call("POST", "/v2/datasets", { alias: "qa", version: "v2", goldens: [single("d")] })).body.error).toContain("dotted numeric");
      await team.close();
    });

    it("applies the request's finalized to every golden, ignoring the goldens' own", async () => {
      await api("POST", "/v2/datasets", { alias: "f", finalized: false, goldens: [single("a", { finalized: true }), single("b")] });
      expect(dev.state.datasets.f!.unversioned.map((g) => g.finalized)).toEqual([false, false]);
    });

    it("checks golden fields", async () => {
      expect((await api("POST", "/v2/datasets", { alias: "x", goldens: [{ expectedOutput: "no input" }] })).status).toBe(400);
      expect((await api("POST", "/v2/datasets", { alias: "x", goldens: [single("a", { toolsCalled: [{ type: "FUNCTION" }] })] })).body.error).toContain("name is required");
      expect((await api("POST", "/v2/datasets", { alias: "x", goldens: [single("a", { imagesMapping: { i1: { url: "u" } } })] })).body.error).toContain("local is required");
    });
  });

  describe("HTTP behaviour", () => {
    it("answers malformed JSON, a wrong content type and an oversized body with a clear 4xx", async () => {
      const small = await startDevServer({ port: 0, strict, maxBodyBytes: 1024 });
      const call = apiFor(small);
      expect((await call("POST", "/v1/traces", "{not json")).status).toBe(400);
      const wrongType = await call("POST", "/v1/traces", JSON.stringify({ uuid: "x" }), small.projectKey, "text/plain");
      expect(wrongType.status).toBe(415);
      const big = await call("POST", "/v1/traces", { uuid: "x", pad: "y".repeat(5000) });
      expect(big.status).toBe(413);
      expect(Object.keys(small.state.traces)).toHaveLength(0);
      // Still serving.
      expect((await call("GET", "/v1/metrics")).status).toBe(200);
      await small.close();
    });

    it("answers 404 for an unknown endpoint and 405 for a wrong method", async () => {
      expect((await api("GET", "/v1/nothing")).status).toBe(404);
      const r = await api("DELETE", "/v1/traces");
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    });

    it("keeps every acknowledged write across a restart with a data file", async () => {
      const file = join(mkdtempSync(join(tmpdir(), "evaltrace-")), "state.json");
      const first = await startDevServer({ port: 0, strict, dataFile: file });
      await apiFor(first)("POST", "/v2/prompts", { alias: "kept", text: "t" });
      await apiFor(first)("POST", "/v1/traces", { uuid: "kept", startTime: "2026-01-01T00:00:00Z", endTime: "2026-01-01T00:00:01Z" });
      await first.close();
      const second = await startDevServer({ port: 0, strict, dataFile: file });
      expect(second.projectKey).toBe(first.projectKey);
      expect(second.state.prompts.kept).toBeDefined();
      expect(second.state.traces.kept).toBeDefined();
      expect((await apiFor(second)("GET", "/v1/metrics")).status).toBe(200);
      await second.close();
    });
  });
});
