import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { EvaltraceCallbackHandler } from "../../src/integrations/langchain/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const model = () => new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: fake.url }, maxRetries: 0 });
// A JSON Schema tool: no zod, so the file also runs on Bun.
const lookup = tool(async ({ orderId }: { orderId: string }) => `order ${orderId} shipped`, {
  name: "lookup_order",
  description: "Finds an order",
  schema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
});

async function traced<T>(name: string, fn: () => Promise<T>): Promise<{ result: T; spans: ReturnType<typeof spansOf>; uuid: string }> {
  let uuid = "";
  const result = await observe({ name }, async () => {
    uuid = currentTraceUuid()!;
    return fn();
  })();
  expect((await flush()).ok).toBe(true);
  return { result, spans: spansOf(uuid), uuid };
}
const spansOf = (uuid: string) => dev.state.traces[uuid]!.spans;

/** Nothing the emulator stored for the trace is a LangChain serialization blob. */
function expectNoBlobs(uuid: string) {
  const stored = JSON.stringify(dev.state.traces[uuid]);
  expect(stored).not.toMatch(/"lc"\s*:\s*1/);
  expect(stored).not.toContain('\\"lc\\":1');
}

const ask = { messages: [{ role: "user", content: "Where is order A-1?" }] };
// The app's own span returns the answer text: observe() captures what the function returns as it is.
const answer = (state: { messages: { content: unknown }[] }) => String(state.messages.at(-1)?.content);

describe("LangGraph createReactAgent with EvaltraceCallbackHandler", () => {
  it("is one agent span with its tools, and its llm and tool calls as its children, without the graph's plumbing", async () => {
    const agent = createReactAgent({ llm: model(), tools: [lookup], name: "support_agent" });
    const { result, spans, uuid } = await traced("app", async () => answer(await agent.invoke(ask, { callbacks: [new EvaltraceCallbackHandler()] })));
    expect(result).toBe("Orders ship in 2 days.");
    const app = spans.find((s) => s.name === "app")!;
    const agentSpan = spans.find((s) => s.type === "agent")!;
    expect(agentSpan).toMatchObject({ name: "support_agent", parentUuid: app.uuid, availableTools: ["lookup_order"], integration: "LangChain", input: ask });
    expect((agentSpan.output as { messages: unknown[] }).messages).toEqual([
      { role: "user", content: "Where is order A-1?" },
      { role: "assistant", content: "", tool_calls: [{ id: "call_1", name: "lookup_order", args: { orderId: "A-1001" } }] },
      { role: "tool", content: "order A-1001 shipped", tool_call_id: "call_1", name: "lookup_order" },
      { role: "assistant", content: "Orders ship in 2 days." },
    ]);
    // Only the agent's work: two model calls and the tool, directly under it, in order.
    const children = spans.filter((s) => s.parentUuid === agentSpan.uuid).sort((a, b) => a.startTime.localeCompare(b.startTime));
    expect(children.map((s) => [s.type, s.name])).toEqual([
      ["llm", "ChatOpenAI"],
      ["tool", "lookup_order"],
      ["llm", "ChatOpenAI"],
    ]);
    expect(spans).toHaveLength(5);
    const [first, toolSpan, second] = children;
    expect(first).toMatchObject({ output: 'lookup_order({"orderId":"A-1001"})', toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }], inputTokenCount: 20, outputTokenCount: 7 });
    expect(toolSpan).toMatchObject({ input: { orderId: "A-1001" }, output: "order A-1001 shipped", status: "SUCCESS" });
    // The tool call and its result stay in the next call's input.
    expect(second).toMatchObject({
      input: [
        { role: "user", content: "Where is order A-1?" },
        { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})' },
        { role: "tool", content: "order A-1001 shipped" },
      ],
      output: "Orders ship in 2 days.",
    });
    expect(second!.toolsCalled).toBeUndefined();
    expectNoBlobs(uuid);
  });

  it("records the graph's nodes as base spans with graphNodes, still without __start__ and the wiring", async () => {
    const agent = createReactAgent({ llm: model(), tools: [lookup] });
    const { spans, uuid } = await traced("app", async () => answer(await agent.invoke(ask, { callbacks: [new EvaltraceCallbackHandler({ graphNodes: true })] })));
    const agentSpan = spans.find((s) => s.type === "agent")!;
    expect(agentSpan.name).toBe("LangGraph");
    const nodes = spans.filter((s) => s.parentUuid === agentSpan.uuid).sort((a, b) => a.startTime.localeCompare(b.startTime));
    expect(nodes.map((s) => [s.type, s.name])).toEqual([
      ["base", "agent"],
      ["base", "tools"],
      ["base", "agent"],
    ]);
    expect(spans.find((s) => s.name === "__start__" || String(s.name).startsWith("Runnable") || String(s.name).startsWith("Channel"))).toBeUndefined();
    expect(spans.filter((s) => s.parentUuid === nodes[1]!.uuid).map((s) => s.name)).toEqual(["lookup_order"]);
    expectNoBlobs(uuid);
  });

  it("records a failing tool as an errored tool span and the agent's own error, without a double span", async () => {
    const broken = tool(
      async () => {
        throw new Error("warehouse offline");
      },
      { name: "lookup_order", description: "Finds an order", schema: { type: "object", properties: { orderId: { type: "string" } } } },
    );
    // handleToolErrors false: the tool's error ends the run, as the app sees it.
    const { ToolNode } = await import("@langchain/langgraph/prebuilt");
    const agent = createReactAgent({ llm: model(), tools: new ToolNode([broken], { handleToolErrors: false }) });
    let caught: unknown;
    const { spans } = await traced("app", async () => agent.invoke(ask, { callbacks: [new EvaltraceCallbackHandler()] }).catch((e: unknown) => (caught = e)));
    expect(String(caught)).toContain("warehouse offline");
    expect(spans.filter((s) => s.type === "tool")).toMatchObject([{ name: "lookup_order", status: "ERRORED", error: expect.stringContaining("warehouse offline") }]);
    expect(spans.filter((s) => s.type === "agent")).toMatchObject([{ status: "ERRORED" }]);
  });
});

describe("instrumentLangChain: every run, no callbacks passed", () => {
  it("records runs without callbacks, once each (a run's own handler wins), until undone; installing twice is one install", async () => {
    const { instrumentLangChain, uninstrumentLangChain } = await import("../../src/integrations/langchain/index.js");
    const undo = instrumentLangChain();
    try {
      expect(instrumentLangChain()).toBe(undo);
      const agent = createReactAgent({ llm: model(), tools: [lookup] });
      const plain = await traced("global", async () => answer(await agent.invoke(ask)));
      expect(plain.result).toBe("Orders ship in 2 days.");
      expect(plain.spans.map((s) => s.type).sort()).toEqual(["agent", "base", "llm", "llm", "tool"]);
      expectNoBlobs(plain.uuid);
      // A run given its own handler: one set of spans, the run's handler's (its metricCollection).
      const own = await traced("own handler", () => model().invoke("hi", { callbacks: [new EvaltraceCallbackHandler({ metricCollection: "answers" })] }));
      expect(own.spans.filter((s) => s.type === "llm")).toMatchObject([{ metricCollection: "answers" }]);
    } finally {
      undo();
    }
    const after = await traced("after undo", () => model().invoke("hi"));
    expect(after.spans.map((s) => s.name)).toEqual(["after undo"]);
    // Undo twice, uninstrument with nothing installed: no effect, no throw.
    undo();
    uninstrumentLangChain();
    const again = instrumentLangChain({ metricCollection: "answers" });
    try {
      expect(again).not.toBe(undo);
      const back = await traced("reinstalled", () => model().invoke("hi"));
      expect(back.spans.filter((s) => s.type === "llm")).toMatchObject([{ metricCollection: "answers", output: "Orders ship in 2 days." }]);
    } finally {
      uninstrumentLangChain();
    }
    const off = await traced("off", () => model().invoke("hi"));
    expect(off.spans).toHaveLength(1);
  });
});
