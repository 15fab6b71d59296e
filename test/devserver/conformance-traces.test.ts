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
    await api("POST", "/v1/metric-collections", { name: "answers", multiTurn: false });
    await api("POST", "/v1/metric-collections", { name: "conversation", multiTurn: true });
  });
  afterEach(() => dev.close());

  const T0 = "2026-06-01T10:00:00.000100Z";
  const T1 = "2026-06-01T10:00:00.000200Z";
  const T2 = "2026-06-01T10:00:01.000000Z";
  const empty = { baseSpans: [], llmSpans: [], retrieverSpans: [], agentSpans: [], toolSpans: [] };
  const span = (uuid: string, extra: Record<string, unknown> = {}) => ({ uuid, name: uuid, startTime: T0, endTime: T2, ...extra });
  const trace = (uuid: string, extra: Record<string, unknown> = {}) => ({ uuid, startTime: T0, endTime: T2, ...empty, baseSpans: [span(`${uuid}-root`)], ...extra });

  describe("trace ingestion (spec 4.6)", () => {
    it("answers data.id for a single trace and success alone for the list form", async () => {
      expect((await api("POST", "/v1/traces", trace("t1"))).body).toEqual({ success: true, data: { id: "t1" } });
      expect((await api("POST", "/v1/traces", { traces: [trace("t2"), trace("t3")] })).body).toEqual({ success: true });
      expect(Object.keys(dev.state.traces).sort()).toEqual(["t1", "t2", "t3"]);
    });

    it("requires uuid, startTime and endTime, as ISO 8601", async () => {
      expect((await api("POST", "/v1/traces", { uuid: "x", startTime: T0 })).body.error).toBe("body.endTime is required");
      expect((await api("POST", "/v1/traces", { uuid: "x", startTime: "yesterday", endTime: T2 })).body.error).toContain("ISO 8601");
    });

    it("rejects a parentUuid that is the trace uuid (rule 3)", async () => {
      const r = await api("POST", "/v1/traces", trace("t", { baseSpans: [span("a", { parentUuid: "t" })] }));
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("trace uuid as parentUuid");
    });

    it("rejects a parentUuid that names no span of the trace (rule 1)", async () => {
      const r = await api("POST", "/v1/traces", trace("t", { baseSpans: [span("a", { parentUuid: "ghost" })] }));
      expect(r.body.error).toContain("names no span");
    });

    it("rejects a child that starts before its parent (rule 4), keeping sub-millisecond order", async () => {
      const bad = await api("POST", "/v1/traces", trace("t", { baseSpans: [span("p", { startTime: T1 }), span("c", { parentUuid: "p", startTime: T0 })] }));
      expect(bad.body.error).toContain("starts before its parent");
      const ok = await api("POST", "/v1/traces", trace("t", { baseSpans: [span("p", { startTime: T0 }), span("c", { parentUuid: "p", startTime: T1 })] }));
      expect(ok.status).toBe(200);
    });

    it("accepts roots without parentUuid and nests spans across lists (rule 2)", async () => {
      const r = await api("POST", "/v1/traces", {
        ...trace("t"),
        baseSpans: [],
        agentSpans: [span("agent", { availableTools: ["search"], agentHandoffs: [] })],
        llmSpans: [span("llm", { parentUuid: "agent", model: "gpt-4o", input: [{ role: "user", content: "hi" }], output: "yo", inputTokenCount: 3 })],
        toolSpans: [span("tool", { parentUuid: "agent", description: "search" })],
        retrieverSpans: [span("ret", { parentUuid: "agent", embedder: "e", topK: 3 })],
      });
      expect(r.status).toBe(200);
      expect(dev.state.traces.t!.spans.map((s) => [s.uuid, s.type])).toEqual([
        ["llm", "llm"],
        ["ret", "retriever"],
        ["agent", "agent"],
        ["tool", "tool"],
      ]);
    });

    it("types span inputs as the spec does (strict) or as the live service does (lenient)", async () => {
      const objectInput = await api("POST", "/v1/traces", trace("t1", { baseSpans: [span("a", { input: { q: 1 } })] }));
      const stringLlmInput = await api("POST", "/v1/traces", trace("t2", { baseSpans: [], llmSpans: [span("b", { input: "hi" })] }));
      const unknownField = await api("POST", "/v1/traces", trace("t3", { baseSpans: [span("c", { model: "m" })] }));
      if (strict) {
        expect(objectInput.body.error).toContain("input must be a string");
        expect(stringLlmInput.body.error).toContain("must be a list");
        expect(unknownField.body.error).toBe("unknown field body.baseSpans[0].model");
      } else {
        expect([objectInput.status, stringLlmInput.status, unknownField.status]).toEqual([200, 200, 200]);
        expect(dev.state.traces.t1!.spans[0]!.input).toEqual({ q: 1 });
      }
      // In both modes: a span's type must match its list.
      expect((await api("POST", "/v1/traces", trace("t", { baseSpans: [span("d", { type: "llm" })] }))).body.error).toContain("is in baseSpans");
    });

    it("writes nothing of a list with one invalid trace", async () => {
      const r = await api("POST", "/v1/traces", { traces: [trace("good"), trace("bad", { tags: "x" })] });
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("body.traces[1].tags");
      expect(dev.state.traces.good).toBeUndefined();
    });

    it("accepts an identical retry as a no-op and rejects a different trace with the same uuid", async () => {
      await api("POST", "/v1/traces", trace("t"));
      expect((await api("POST", "/v1/traces", trace("t"))).status).toBe(200);
      expect((await api("POST", "/v1/traces", trace("t", { name: "other" }))).status).toBe(409);
      expect(Object.keys(dev.state.traces)).toEqual(["t"]);
    });

    it("derives threads and users", async () => {
      await api("POST", "/v1/traces", { traces: [trace("a", { threadId: "th", userId: "u" }), trace("b", { threadId: "th", userId: "u2" })] });
      expect(dev.state.threads.th).toEqual(["a", "b"]);
      expect(dev.state.users).toEqual({ u: ["a"], u2: ["b"] });
    });

    it("records online evaluations for a trace or span with a single-turn collection and a test case", async () => {
      await api("POST", "/v1/traces", trace("t", {
        metricCollection: "answers",
        llmTestCase: { input: "q", actualOutput: "a" },
        baseSpans: [span("s", { metricCollection: "conversation", llmTestCase: { input: "q", actualOutput: "a" } }), span("n", { metricCollection: "answers" })],
      }));
      const jobs = dev.state.jobs.map((j) => [j.target, j.targetId, j.status]);
      expect(jobs).toEqual([
        ["trace", "t", "NOT_JUDGED"],
        ["span", "s", "REJECTED"],
      ]);
    });
  });

  describe("trace update (spec 3.2, 4.6)", () => {
    beforeEach(async () => {
      await api("POST", "/v1/traces", trace("t", { output: "first", environment: "development", metadata: { a: 1 }, tags: ["x"] }));
    });

    it("overwrites output, endTime and environment; appends metadata, tags and spans", async () => {
      const r = await api("PUT", "/v1/traces/t", {
        output: "second",
        endTime: "2026-06-01T10:00:05Z",
        environment: "production",
        metadata: { b: 2 },
        tags: ["y"],
        toolSpans: [span("late", { parentUuid: "t-root", startTime: T1 })],
      });
      expect(r.body).toEqual({ success: true });
      const t = dev.state.traces.t!;
      expect(t.fields).toMatchObject({ output: "second", endTime: "2026-06-01T10:00:05Z", environment: "production", metadata: { a: 1, b: 2 }, tags: ["x", "y"] });
      expect(t.spans.map((s) => s.uuid)).toEqual(["t-root", "late"]);
    });

    it("never changes an existing span", async () => {
      const r = await api("PUT", "/v1/traces/t", { baseSpans: [span("t-root", { name: "renamed" })] });
      expect(r.status).toBe(409);
      expect(dev.state.traces.t!.spans[0]!.name).toBe("t-root");
    });

    it("refuses fields that cannot change after creation", async () => {
      for (const field of ["name", "input", "threadId", "userId", "metricCollection", "startTime"]) {
        const r = await api("PUT", "/v1/traces/t", { [field]: "x" });
        expect(r.status, field).toBe(400);
        expect(r.body.error).toContain(`body.${field} cannot be updated`);
      }
    });

    it("checks the hierarchy of appended spans against the stored ones", async () => {
      expect((await api("PUT", "/v1/traces/t", { baseSpans: [span("c", { parentUuid: "nope" })] })).status).toBe(400);
      expect((await api("PUT", "/v1/traces/t", { baseSpans: [span("c", { parentUuid: "t" })] })).status).toBe(400);
    });

    it("answers 404 for an unknown trace", async () => {
      expect((await api("PUT", "/v1/traces/none", { output: "x" })).status).toBe(404);
    });
  });

  describe("offline evaluations (spec 4.7)", () => {
    beforeEach(async () => {
      await api("POST", "/v1/traces", { traces: [trace("a", { threadId: "th", input: "hi", output: "hello" }), trace("b", { threadId: "th", input: "bye" })] });
    });

    it("evaluates a thread with a multi-turn collection, with chatbotRole, either key spelling", async () => {
      expect((await api("POST", "/v1/evaluate/threads/th", { metricCollections: "conversation", chatbotRole: "helper" })).body).toEqual({ success: true });
      expect((await api("POST", "/v1/evaluate/threads/th", { metricCollection: "conversation" })).status).toBe(200);
      expect(dev.state.jobs.filter((j) => j.target === "thread")).toHaveLength(2);
      expect(dev.state.jobs[0]).toMatchObject({ chatbotRole: "helper", trigger: "offline" });
    });

    it("refuses a single-turn collection for a thread, and multi-turn for traces and spans", async () => {
      expect((await api("POST", "/v1/evaluate/threads/th", { metricCollections: "answers" })).status).toBe(400);
      expect((await api("POST", "/v1/evaluate/traces/a", { metricCollections: "conversation" })).status).toBe(400);
      expect((await api("POST", "/v1/evaluate/spans/a-root", { metricCollections: "conversation" })).status).toBe(400);
      expect((await api("POST", "/v1/evaluate/traces/a", { metricCollections: "answers" })).status).toBe(200);
      expect((await api("POST", "/v1/evaluate/spans/a-root", { metricCollections: "answers" })).status).toBe(200);
    });

    it("needs the thread's traces to have inputs and/or outputs", async () => {
      await api("POST", "/v1/traces", trace("c", { threadId: "bare" }));
      const r = await api("POST", "/v1/evaluate/threads/bare", { metricCollections: "conversation" });
      expect(r.status).toBe(400);
      // Strict: any trace without both fails the thread; lenient skips such a trace, and here none is left.
      expect(r.body.error).toContain(strict ? "neither input nor output" : "no trace of thread bare has an input or output");
    });

    it("does not take a new test case on trace evaluation", async () => {
      const r = await api("POST", "/v1/evaluate/traces/a", { metricCollections: "answers", llmTestCase: { input: "q", actualOutput: "a" } });
      expect(r.body.error).toBe("unknown field body.llmTestCase");
    });

    it("answers 404 for unknown threads, traces, spans and collections; 400 without a collection", async () => {
      expect((await api("POST", "/v1/evaluate/threads/none", { metricCollections: "conversation" })).status).toBe(404);
      expect((await api("POST", "/v1/evaluate/traces/none", { metricCollections: "answers" })).status).toBe(404);
      expect((await api("POST", "/v1/evaluate/spans/none", { metricCollections: "answers" })).status).toBe(404);
      expect((await api("POST", "/v1/evaluate/traces/a", { metricCollections: "nope" })).status).toBe(404);
      expect((await api("POST", "/v1/evaluate/traces/a", {})).status).toBe(400);
      expect((await api("POST", "/v1/evaluate/traces/a", { metricCollections: "answers", metricCollection: "other" })).status).toBe(400);
    });
  });
});
