import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { z as Zod } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredSpan, StoredTrace } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { EvaltraceExporter, type MastraExportedSpan } from "../../src/integrations/mastra/index.js";
import { TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { importNode22, runsWithNode22 } from "../helpers/node22.js";
import { runtimeName } from "../helpers/skips.js";

// EvaltraceExporter with the real @mastra/core and @mastra/observability (Node 22.13+): an Agent
// with a tool on an @ai-sdk/openai model served by the fake OpenAI server, and a workflow.
const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
const supported = runsWithNode22(
  (major > 22 || (major === 22 && minor >= 13)) && !("Bun" in globalThis),
  "test/integrations/mastra.test.ts",
  `@mastra/core needs Node 22.13+ (this is ${runtimeName}); npm run test:runtimes runs it`,
);

// What this file uses of @mastra/core and @mastra/observability, typed here: they live in
// test/node22 (installed on demand), so the type check cannot read their own types.
type Options = { tracingOptions: { tags: string[] } };
type Agent = {
  generate(prompt: string, o: Options): Promise<{ text: string }>;
  stream(prompt: string, o: Options): Promise<{ text: Promise<string> }>;
};
type Step = { id: string };
type Workflow = { then(s: Step): Workflow; commit(): Workflow };
type Mastra = { Mastra: new (o: Record<string, unknown>) => { getAgent(id: string): unknown; getWorkflow(id: string): unknown } };
type AgentModule = { Agent: new (o: Record<string, unknown>) => Agent };
type ToolsModule = { createTool(o: { id: string; description: string; inputSchema: unknown; execute(input: { orderId: string }): Promise<unknown> }): unknown };
type WorkflowsModule = {
  createStep(o: { id: string; inputSchema: unknown; outputSchema: unknown; execute(a: { inputData: { text: string } }): Promise<{ text: string }> }): Step;
  createWorkflow(o: { id: string; inputSchema: unknown; outputSchema: unknown }): Workflow;
};
type ObservabilityModule = { Observability: new (o: Record<string, unknown>) => unknown };
type Run = { start(o: { inputData: unknown }): Promise<{ status: string }> };

let dev: DevServer;
let fake: FakeOpenAI;
let exporter: EvaltraceExporter;
let agent: Agent;
let failingAgent: Agent;
let workflow: { createRun(): Promise<Run> };
let failingWorkflow: { createRun(): Promise<Run> };
/** What Mastra handed its exporters, by span id (the ended spans), to compare ours with. */
const seen = new Map<string, MastraExportedSpan>();

beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  const { Mastra } = (await importNode22("@mastra/core")) as Mastra;
  const { Agent } = (await importNode22("@mastra/core/agent")) as AgentModule;
  const { createTool } = (await importNode22("@mastra/core/tools")) as ToolsModule;
  const { createStep, createWorkflow } = (await importNode22("@mastra/core/workflows")) as WorkflowsModule;
  const { Observability } = (await importNode22("@mastra/observability")) as ObservabilityModule;
  const { createOpenAI } = await import("@ai-sdk/openai");
  // The zod that @mastra/core loads (test/node22's), as in an app with one copy.
  const { z } = (await importNode22("zod")) as { z: typeof Zod };
  const openai = createOpenAI({ apiKey: "sk-test", baseURL: fake.url });
  const lookup = createTool({
    id: "lookup_order",
    description: "Finds an order",
    inputSchema: z.object({ orderId: z.string() }),
    execute: async (input: { orderId: string }) => ({ status: `order ${input.orderId} shipped` }),
  });
  const broken = createTool({
    id: "lookup_order",
    description: "Finds an order",
    inputSchema: z.object({ orderId: z.string() }),
    execute: async () => {
      throw new Error("order database down");
    },
  });
  agent = new Agent({ id: "support", name: "support", instructions: "Be brief", model: openai.chat("gpt-4o-mini"), tools: { lookup_order: lookup } });
  failingAgent = new Agent({ id: "broken", name: "broken", instructions: "Be brief", model: openai.chat("gpt-4o-mini"), tools: { lookup_order: broken } });
  const shout = createStep({ id: "shout", inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ text: z.string() }), execute: async ({ inputData }) => ({ text: inputData.text.toUpperCase() }) });
  const explode = createStep({
    id: "explode",
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() }),
    execute: async () => {
      throw new Error("step failed on purpose");
    },
  });
  const wfSchema = { inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ text: z.string() }) };
  // The online-eval test case of each generation: the last user message and the reply.
  exporter = new EvaltraceExporter({ llmTestCase: true });
  const recorder = {
    name: "recorder",
    onTracingEvent(e: { type: string; exportedSpan: MastraExportedSpan }) {
      if (e.type === "span_ended") seen.set(e.exportedSpan.id, e.exportedSpan);
    },
    exportTracingEvent: async () => {},
    flush: async () => {},
    shutdown: async () => {},
  };
  const mastra = new Mastra({
    agents: { support: agent, broken: failingAgent },
    workflows: { shouter: createWorkflow({ id: "shouter", ...wfSchema }).then(shout).commit(), exploder: createWorkflow({ id: "exploder", ...wfSchema }).then(explode).commit() },
    logger: false,
    observability: new Observability({ configs: { evaltrace: { serviceName: "mastra-test", exporters: [exporter, recorder] } } }),
  });
  // Registered with Mastra, the agents report to its observability.
  expect(mastra.getAgent("support")).toBe(agent);
  workflow = mastra.getWorkflow("shouter") as unknown as typeof workflow;
  failingWorkflow = mastra.getWorkflow("exploder") as unknown as typeof workflow;
});
afterAll(async () => {
  if (!supported) return;
  await shutdown(0);
  await fake.close();
  await dev.close();
});

/** The one stored trace whose tags include `tag` (each case tags its run). */
async function traceTagged(tag: string): Promise<StoredTrace> {
  expect((await flush()).ok).toBe(true);
  const found = Object.values(dev.state.traces).filter((t) => (t.fields.tags as string[] | undefined)?.includes(tag));
  expect(found).toHaveLength(1);
  return found[0]!;
}

const byName = (spans: StoredSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: StoredSpan[], name: string) => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe.skipIf(!supported)("EvaltraceExporter with the real @mastra/core", () => {
  it("an agent run with a tool, inside observe(): one trace of typed, nested spans with usage, tool input/output and timings", async () => {
    let uuid = "";
    let text = "";
    await observe({ type: "base", name: "app" }, async () => {
      uuid = currentTraceUuid()!;
      text = (await agent.generate("Where is my order?", { tracingOptions: { tags: ["generate"] } })).text;
    })();
    expect(text).toBe("Orders ship in 2 days.");
    expect((await flush()).ok).toBe(true);
    const trace = dev.state.traces[uuid]!;
    expect(trace.fields.tags).toEqual(["generate"]);
    const spans = trace.spans;
    // The generation's two steps, their inferences and chunks are folded into the llm span.
    expect(spans.map((s) => `${s.type}:${s.name}`).sort()).toEqual(["agent:agent run: 'support'", "base:app", "llm:llm: 'gpt-4o-mini'", "tool:tool: 'lookup_order'"]);
    const app = one(spans, "app");
    const agentSpan = one(spans, "agent run: 'support'");
    const llm = one(spans, "llm: 'gpt-4o-mini'");
    const tool = one(spans, "tool: 'lookup_order'");
    expect(agentSpan).toMatchObject({ parentUuid: app.uuid, status: "SUCCESS", integration: "Mastra", availableTools: ["lookup_order"], input: "Where is my order?", output: "Orders ship in 2 days." });
    expect(agentSpan.metadata).toMatchObject({ "mastra.spanType": "agent_run", "mastra.entity": "support", instructions: "Be brief", runId: expect.any(String) });
    expect(llm).toMatchObject({
      parentUuid: agentSpan.uuid,
      status: "SUCCESS",
      integration: "Mastra",
      model: "gpt-4o-mini-2024-07-18",
      // Mastra's "openai.chat", as the service names the provider.
      provider: "OpenAI",
      // The fake's fixed usage: the tool-call turn 20 + 7, the answer 11 + 4.
      inputTokenCount: 31,
      outputTokenCount: 11,
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Where is my order?" },
      ],
      output: 'Orders ship in 2 days.\nlookup_order({"orderId":"A-1001"})',
      toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }],
      llmTestCase: { input: "Where is my order?", actualOutput: 'Orders ship in 2 days.\nlookup_order({"orderId":"A-1001"})' },
    });
    expect(llm.metadata).toMatchObject({ "mastra.spanType": "model_generation", finishReason: "stop" });
    // Mastra runs the tool inside the generation's step: under the llm span.
    expect(tool).toMatchObject({ parentUuid: llm.uuid, status: "SUCCESS", description: "Finds an order", input: { orderId: "A-1001" }, output: { status: "order A-1001 shipped" } });
    expect(tool.metadata).toMatchObject({ toolCallId: expect.any(String), toolType: "tool" });

    // Timings from Mastra's own clock: first token at completionStartTime, rate over the rest.
    const generation = [...seen.values()].find((s) => s.type === "model_generation" && s.traceId && (s.metadata as { runId?: string }).runId === (agentSpan.metadata as { runId: string }).runId)!;
    const a = generation.attributes as { completionStartTime: Date };
    const start = generation.startTime.getTime();
    const first = a.completionStartTime.getTime();
    const end = generation.endTime!.getTime();
    const meta = llm.metadata as Record<string, number>;
    expect(meta[TIME_TO_FIRST_TOKEN_KEY]).toBe(first - start);
    if (end > first) expect(meta[TOKENS_PER_SECOND_KEY]).toBeCloseTo((11 * 1000) / (end - first), 1);
  });

  it("a streamed agent run on its own is its own trace, the agent at its root", async () => {
    const stream = await agent.stream("Where is my order?", { tracingOptions: { tags: ["stream"] } });
    expect(await stream.text).toBe("Orders ship in 2 days.");
    // The stream's run ends once Mastra has finished its bookkeeping, after the text.
    await vi.waitFor(() => expect([...seen.values()].some((s) => s.type === "agent_run" && s.tags?.includes("stream"))).toBe(true), { timeout: 10_000 });
    const trace = await traceTagged("stream");
    const root = trace.spans.find((s) => s.parentUuid === undefined || s.parentUuid === null)!;
    expect(root).toMatchObject({ type: "agent", name: "agent run: 'support'", status: "SUCCESS", output: "Orders ship in 2 days." });
    expect(trace.spans.map((s) => s.type).sort()).toEqual(["agent", "llm", "tool"]);
    expect(one(trace.spans, "llm: 'gpt-4o-mini'")).toMatchObject({ parentUuid: root.uuid, inputTokenCount: 31, outputTokenCount: 11 });
  });

  it("a workflow: the run and its step as base spans, input and output; a failed step is ERRORED", async () => {
    const run = await workflow.createRun();
    let uuid = "";
    await observe({ name: "jobs" }, async () => {
      uuid = currentTraceUuid()!;
      expect((await run.start({ inputData: { text: "hi" } })).status).toBe("success");
      expect((await (await failingWorkflow.createRun()).start({ inputData: { text: "hi" } })).status).toBe("failed");
    })();
    expect((await flush()).ok).toBe(true);
    const spans = dev.state.traces[uuid]!.spans;
    const jobs = one(spans, "jobs");
    const shouter = one(spans, "workflow run: 'shouter'");
    // Base spans carry objects as JSON text on the wire.
    expect(shouter).toMatchObject({ type: "base", parentUuid: jobs.uuid, status: "SUCCESS", integration: "Mastra", input: '{"text":"hi"}', output: '{"text":"HI"}' });
    expect(shouter.metadata).toMatchObject({ "mastra.spanType": "workflow_run", status: "success" });
    expect(one(spans, "workflow step: 'shout'")).toMatchObject({ type: "base", parentUuid: shouter.uuid, input: '{"text":"hi"}', output: '{"text":"HI"}' });
    const exploder = one(spans, "workflow run: 'exploder'");
    const explode = one(spans, "workflow step: 'explode'");
    expect(explode).toMatchObject({ parentUuid: exploder.uuid, status: "ERRORED" });
    expect(explode.error).toContain("step failed on purpose");
  });

  it("a tool that throws is an ERRORED tool span; the agent goes on", async () => {
    const reply = await failingAgent.generate("Where is my order?", { tracingOptions: { tags: ["broken-tool"] } });
    expect(typeof reply.text).toBe("string");
    const trace = await traceTagged("broken-tool");
    const tool = one(trace.spans, "tool: 'lookup_order'");
    expect(tool.status).toBe("ERRORED");
    expect(tool.error).toContain("order database down");
    expect(one(trace.spans, "agent run: 'broken'").status).toBe("SUCCESS");
  });

  it("never throws into Mastra: hostile events are ignored, a parent cycle is cut, and open spans are bounded and counted", async () => {
    const hostile = new EvaltraceExporter({ maxOpenSpans: 3 });
    const throwing = {
      type: "span_started",
      get exportedSpan(): MastraExportedSpan {
        throw new Error("getter");
      },
    };
    const at = new Date();
    const span = (id: string, parentSpanId: string | undefined, type = "generic"): MastraExportedSpan => ({ id, traceId: "t1", parentSpanId, name: `hostile ${id}`, type, startTime: at, isRootSpan: !parentSpanId, isEvent: false });
    const events: unknown[] = [null, {}, { type: "span_ended" }, throwing, { type: "span_started", exportedSpan: { id: 42 } }];
    for (const e of events) expect(() => hostile.onTracingEvent(e as never)).not.toThrow();
    await expect(hostile.exportTracingEvent(throwing as never)).resolves.toBeUndefined();
    let uuid = "";
    await observe({ name: "hostile-root" }, async () => {
      uuid = currentTraceUuid()!;
      // Two left-out spans whose parents point at each other, and a span under them.
      hostile.onTracingEvent({ type: "span_started", exportedSpan: span("a", "b", "model_step") });
      hostile.onTracingEvent({ type: "span_started", exportedSpan: span("b", "a", "model_step") });
      hostile.onTracingEvent({ type: "span_started", exportedSpan: span("c", "a") });
      // A fourth open span is one too many: left out, counted.
      hostile.onTracingEvent({ type: "span_started", exportedSpan: span("d", "c") });
      expect(hostile.droppedSpans).toBe(1);
      // Its children join the nearest span we have: the trace's first.
      hostile.onTracingEvent({ type: "span_ended", exportedSpan: { ...span("e", "d"), isEvent: true } });
      hostile.onTracingEvent({ type: "span_ended", exportedSpan: { ...span("c", "a"), output: { huge: "x".repeat(200_000) }, errorInfo: { message: "boom" } } });
    })();
    await hostile.shutdown();
    const spans = dev.state.traces[uuid]!.spans;
    const c = one(spans, "hostile c");
    // The cycle gives no parent: the span joins the app's current trace.
    expect(c).toMatchObject({ parentUuid: one(spans, "hostile-root").uuid, status: "ERRORED", error: expect.stringContaining("boom") });
    expect(one(spans, "hostile e").parentUuid).toBe(c.uuid);
    expect(byName(spans, "hostile d")).toHaveLength(0);
  });
});
