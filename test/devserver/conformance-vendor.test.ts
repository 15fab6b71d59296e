import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";

// Payloads shaped like what the vendor's own SDKs send (built by hand from the shapes in
// wire-format.md and issue 15), run against both modes.
const T0 = "2026-06-01T10:00:00.000Z";
const T1 = "2026-06-01T10:00:00.500Z";
const T2 = "2026-06-01T10:00:01.000Z";

/** The npm SDK: `traceUuid` on every span, any-JSON trace input/output, an errored span with `output: null`. */
const npmTrace = {
  uuid: "npm-1",
  name: "agent",
  startTime: T0,
  endTime: T2,
  input: { question: "Where is my order?" },
  output: {},
  environment: "development",
  baseSpans: [{ uuid: "npm-root", traceUuid: "npm-1", name: "root", type: "base", status: "ERRORED", error: "boom", startTime: T0, endTime: T2, input: { q: 1 }, output: null }],
  llmSpans: [
    { uuid: "npm-llm", traceUuid: "npm-1", parentUuid: "npm-root", name: "llm", type: "llm", status: "SUCCESS", startTime: T1, endTime: T2, model: "gpt-4o", input: "Where is my order?", output: "Soon." },
  ],
  retrieverSpans: [],
  agentSpans: [],
  toolSpans: [],
};

/** The Python SDK: test-run fields, attachments, token intervals, fractional token counts, llm input as an object. */
const pythonTrace = {
  uuid: "py-1",
  startTime: T0,
  endTime: T2,
  input: ["list", "input"],
  output: 42,
  testCaseId: "tc-1",
  testRunId: "tr-1",
  turnId: "turn-1",
  metricsData: [],
  baseSpans: [],
  llmSpans: [
    {
      uuid: "py-llm",
      name: "chat",
      type: "llm",
      status: "SUCCESS",
      startTime: T0,
      endTime: T2,
      model: "gpt-4o",
      input: { messages: [{ role: "user", content: "hi" }] },
      output: { role: "assistant", content: "yo" },
      inputTokenCount: 12.0,
      outputTokenCount: 3.5,
      attachments: [],
      tokenIntervals: { "0.1": 3 },
    },
  ],
  retrieverSpans: [],
  agentSpans: [],
  toolSpans: [],
};

let dev: DevServer;
const logs: string[] = [];
afterEach(async () => {
  await dev.close();
  logs.length = 0;
});
const start = async (strict: boolean) => {
  dev = await startDevServer({ port: 0, strict, log: (l) => logs.push(l) });
  return apiFor(dev);
};

/** A request with the API key under the hyphenated spelling the Python SDK sends. */
const hyphenated = (body: unknown) =>
  fetch(`${dev.url}/v1/traces`, { method: "POST", headers: { "SERVICE-API-KEY": dev.projectKey, "content-type": "application/json" }, body: JSON.stringify(body) });

describe("lenient (default) mode: accepts what the live service accepts", () => {
  it("takes the npm SDK's trace and logs one line per unknown field name and relaxed rule", async () => {
    const api = await start(false);
    const r = await api("POST", "/v1/traces", npmTrace);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(dev.state.traces["npm-1"]!.fields.input).toEqual({ question: "Where is my order?" });
    const lenient = logs.filter((l) => l.includes("lenient:"));
    expect(lenient.filter((l) => l.includes("body.baseSpans[].traceUuid"))).toHaveLength(1);
    expect(lenient.filter((l) => l.includes("body.llmSpans[].traceUuid"))).toHaveLength(1);
    expect(lenient.some((l) => l.includes("body.input"))).toBe(true);
    expect(lenient.some((l) => l.includes("body.llmSpans[].input"))).toBe(true);
  });

  it("takes the Python SDK's trace, with fractional token counts and the SERVICE-API-KEY header", async () => {
    await start(false);
    const r = await hyphenated(pythonTrace);
    expect(r.status, await r.text()).toBe(200);
    expect(dev.state.traces["py-1"]!.spans[0]!.outputTokenCount).toBe(3.5);
    const lenient = logs.filter((l) => l.includes("lenient:")).join("\n");
    for (const field of ["testCaseId", "testRunId", "turnId", "metricsData", "attachments", "tokenIntervals"]) expect(lenient).toContain(field);
    expect(lenient).toContain("SERVICE-API-KEY");
    expect(lenient).toContain("outputTokenCount");
  });

  it("takes output: null and any JSON in a trace update", async () => {
    const api = await start(false);
    await api("POST", "/v1/traces", { uuid: "u", startTime: T0, endTime: T1 });
    expect((await api("PUT", "/v1/traces/u", { output: { done: true }, extra: 1 })).status).toBe(200);
    expect(dev.state.traces.u!.fields.output).toEqual({ done: true });
  });

  it("skips a thread's trace without input or output in a thread evaluation", async () => {
    const api = await start(false);
    await api("POST", "/v1/metric-collections", { name: "conv", multiTurn: true });
    await api("POST", "/v1/traces", { uuid: "a", threadId: "th", startTime: T0, endTime: T1, input: "hi", output: "yo" });
    await api("POST", "/v1/traces", { uuid: "b", threadId: "th", startTime: T1, endTime: T2 });
    const r = await api("POST", "/v1/evaluate/threads/th", { metricCollections: "conv" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(logs.join("\n")).toContain("skipped 1 trace(s) of thread th");
    await api("POST", "/v1/traces", { uuid: "c", threadId: "bare", startTime: T1, endTime: T2 });
    expect((await api("POST", "/v1/evaluate/threads/bare", { metricCollections: "conv" })).status).toBe(400);
  });

  it("still rejects what the live service rejects: missing uuid, bad timestamps, broken hierarchy", async () => {
    const api = await start(false);
    expect((await api("POST", "/v1/traces", { startTime: T0, endTime: T1 })).status).toBe(400);
    expect((await api("POST", "/v1/traces", { uuid: "x", startTime: "yesterday", endTime: T1 })).status).toBe(400);
    expect((await api("POST", "/v1/traces", { uuid: "x", startTime: T0, endTime: T1, baseSpans: [{ uuid: "s", name: "s", startTime: T0, endTime: T1, parentUuid: "ghost" }] })).status).toBe(400);
  });
});

describe("strict mode (--strict; our SDK's tests)", () => {
  it("rejects the npm SDK's trace: unknown field traceUuid", async () => {
    const api = await start(true);
    const r = await api("POST", "/v1/traces", { ...npmTrace, input: "q", output: "a", baseSpans: [] });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain("unknown field body.llmSpans[0].traceUuid");
  });

  it("rejects any-JSON input, llm input as a string, fractional tokens, output null, and unknown fields named like object members", async () => {
    const api = await start(true);
    const base = { uuid: "s", startTime: T0, endTime: T1 };
    const cases: [unknown, string][] = [
      [{ ...base, input: { q: 1 } }, "body.input must be a string"],
      [{ ...base, llmSpans: [{ uuid: "l", name: "l", startTime: T0, endTime: T1, input: "hi" }] }, "body.llmSpans[0].input must be a list"],
      [{ ...base, llmSpans: [{ uuid: "l", name: "l", startTime: T0, endTime: T1, inputTokenCount: 1.5 }] }, "non-negative integer"],
      [{ ...base, baseSpans: [{ uuid: "b", name: "b", startTime: T0, endTime: T1, output: null }] }, "body.baseSpans[0].output must be a string"],
      [{ ...base, testRunId: "tr" }, "unknown field body.testRunId"],
      [{ ...base, constructor: "x" }, "unknown field body.constructor"],
    ];
    for (const [body, error] of cases) {
      const r = await api("POST", "/v1/traces", body);
      expect(r.status, error).toBe(400);
      expect(r.body.error).toContain(error);
    }
  });

  it("takes only the documented header spelling", async () => {
    await start(true);
    expect((await hyphenated({ uuid: "h", startTime: T0, endTime: T1 })).status).toBe(401);
  });

  it("rejects a thread evaluation when a trace has neither input nor output", async () => {
    const api = await start(true);
    await api("POST", "/v1/metric-collections", { name: "conv", multiTurn: true });
    await api("POST", "/v1/traces", { uuid: "a", threadId: "th", startTime: T0, endTime: T1, input: "hi" });
    await api("POST", "/v1/traces", { uuid: "b", threadId: "th", startTime: T1, endTime: T2 });
    expect((await api("POST", "/v1/evaluate/threads/th", { metricCollections: "conv" })).status).toBe(400);
  });

  it("is the default under EVALTRACE_DEV_STRICT=1 (set for this suite in vitest.config.ts)", async () => {
    dev = await startDevServer({ port: 0 });
    expect(process.env.EVALTRACE_DEV_STRICT).toBe("1");
    expect(dev.strict).toBe(true);
  });
});
