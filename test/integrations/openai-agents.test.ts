import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTraceProcessors, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { EvaltraceTracingProcessor } from "../../src/integrations/openai-agents.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
  setOpenAIAPI("chat_completions");
  // Ours only: the SDK's default exporter would send traces to OpenAI.
  setTraceProcessors([new EvaltraceTracingProcessor({ metricCollection: "answers" })]);
  setTracingDisabled(false);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

async function traced(fn: () => Promise<unknown>) {
  let uuid = "";
  const out = await observe({ name: "app" }, async () => {
    uuid = currentTraceUuid()!;
    return fn();
  })();
  expect((await flush()).ok).toBe(true);
  return { out, spans: dev.state.traces[uuid]!.spans };
}

describe("EvaltraceTracingProcessor with the real OpenAI Agents SDK", () => {
  it("maps the agent, its generations and its function call", async () => {
    const lookup = tool({
      name: "lookup_order",
      description: "Finds an order",
      parameters: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => `order ${orderId} shipped`,
    });
    const agent = new Agent({ name: "Support", instructions: "Be brief", tools: [lookup], model: "gpt-4o-mini" });
    const { out, spans } = await traced(async () => (await run(agent, "Where is order A-1001?")).finalOutput);
    expect(out).toBe("Orders ship in 2 days.");
    const by = (type: string) => spans.filter((s) => s.type === type);
    const workflow = spans.find((s) => s.name === "Agent workflow")!;
    expect(workflow.parentUuid).toBe(spans.find((s) => s.name === "app")!.uuid);
    const [agentSpan] = by("agent");
    expect(agentSpan).toMatchObject({ name: "Support", parentUuid: workflow.uuid, availableTools: ["lookup_order"], agentHandoffs: [], integration: "OpenAI Agents" });
    const llm = by("llm");
    expect(llm).toHaveLength(2);
    for (const s of llm) expect(s).toMatchObject({ name: "generation", parentUuid: agentSpan!.uuid, model: "gpt-4o-mini", metricCollection: "answers" });
    expect(llm.map((s) => [s.inputTokenCount, s.outputTokenCount])).toEqual([
      [20, 7],
      [11, 4],
    ]);
    expect(llm[1]!.llmTestCase).toEqual({ input: "Where is order A-1001?", actualOutput: "Orders ship in 2 days." });
    expect(llm[1]!.output).toBe("Orders ship in 2 days.");
    expect(llm[0]!.input).toEqual(expect.arrayContaining([{ role: "user", content: "Where is order A-1001?" }]));
    expect(by("tool")).toEqual([
      expect.objectContaining({ name: "lookup_order", parentUuid: agentSpan!.uuid, input: { orderId: "A-1001" }, output: "order A-1001 shipped" }),
    ]);
  });

  it("maps handoffs between agents", async () => {
    const refunds = new Agent({ name: "Refunds", instructions: "Handle refunds", model: "gpt-4o-mini" });
    const triage = new Agent({ name: "Triage", instructions: "Route", handoffs: [refunds], model: "gpt-4o-mini" });
    const { out, spans } = await traced(async () => (await run(triage, "I want a refund")).finalOutput);
    expect(out).toBe("Orders ship in 2 days.");
    const agents = spans.filter((s) => s.type === "agent");
    expect(agents.map((s) => s.name)).toEqual(["Triage", "Refunds"]);
    expect(agents[0]).toMatchObject({ agentHandoffs: ["Refunds"] });
    expect(spans.find((s) => s.name === "handoff → Refunds")).toMatchObject({ type: "base", parentUuid: agents[0]!.uuid });
  });
});
