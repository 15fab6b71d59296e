import { type CallableTool, type FunctionCall, GoogleGenAI, mcpToTool, type Part } from "@google/genai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeGoogleGenAI, type FakeRequest, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { objectShape } from "./streams/same-objects.js";

// Automatic function calling (AFC) of @google/genai 2: one generateContent (or
// generateContentStream) whose config.tools hold callable tools makes several model requests and
// calls the tools between them. Major 3: google-genai-v3.test.ts; zero-code with MCP tools:
// mcp-process.test.ts.

let dev: DevServer;
let fake: FakeGoogleGenAI;
const newClient = () => new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: fake.url } });
let ai: GoogleGenAI;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeGoogleGenAI();
  configureForTest(dev.url, dev.projectKey);
  ai = wrapGoogleGenAI(newClient(), { metricCollection: "answers" });
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const declaration = {
  name: "lookup_order",
  description: "Finds an order",
  parametersJsonSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
};

/** A callable tool as apps write one (the SDK's CallableTool): it answers its own calls and counts them. */
function orderTool(behaviour: { throws?: boolean; reportsError?: boolean } = {}): CallableTool & { calls: FunctionCall[][] } {
  const calls: FunctionCall[][] = [];
  return {
    calls,
    tool: async () => ({ functionDeclarations: [declaration] }),
    callTool: async (functionCalls: FunctionCall[]): Promise<Part[]> => {
      calls.push(functionCalls);
      if (behaviour.throws) throw new Error("the warehouse is offline");
      return functionCalls
        .filter((c) => c.name === "lookup_order")
        .map((c) => ({ functionResponse: { name: c.name, response: behaviour.reportsError ? { error: "no such order" } : { output: `order ${(c.args as { orderId: string }).orderId} shipped` } } }));
    },
  };
}

/** Runs `fn` in an agent span; returns the trace's spans and the requests the fake served meanwhile. */
async function traced(fn: () => Promise<unknown>): Promise<{ spans: StoredSpan[]; root: StoredSpan; served: FakeRequest[] }> {
  const before = fake.requests.length;
  let uuid = "";
  await observe({ type: "agent", name: "app" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  const served = fake.requests.slice(before);
  expect((await flush()).ok).toBe(true);
  const spans = [...dev.state.traces[uuid]!.spans].sort((a, b) => a.startTime.localeCompare(b.startTime));
  return { spans, root: spans.find((s) => s.name === "app")!, served };
}

/**
 * The usage the fake reported for each request it served, asked again (it answers a body the same
 * way each time; a streamed request counts as many tokens as the same request unstreamed).
 */
async function usageOf(served: FakeRequest[]): Promise<{ inputTokenCount: number; outputTokenCount: number }[]> {
  const out = [];
  for (const req of served) {
    const res = await fetch(`${fake.url}${req.path.replace(":streamGenerateContent", ":generateContent")}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(req.body) });
    const usage = ((await res.json()) as { usageMetadata: { promptTokenCount: number; candidatesTokenCount: number } }).usageMetadata;
    out.push({ inputTokenCount: usage.promptTokenCount, outputTokenCount: usage.candidatesTokenCount });
  }
  return out;
}

const userAsks = "Where is my order?";

describe("wrapGoogleGenAI: automatic function calling with the real @google/genai package", () => {
  it("generateContent: an agent span for the call holding one llm span per model request the fake served (own input, output, tokens, toolsCalled) and the tool call between them", async () => {
    const tool = orderTool();
    let reply: Awaited<ReturnType<GoogleGenAI["models"]["generateContent"]>> | undefined;
    const { spans, root, served } = await traced(async () => {
      reply = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [tool] } });
    });
    expect(reply?.text).toBe("Orders ship in 2 days.");
    expect(tool.calls).toEqual([[expect.objectContaining({ name: "lookup_order", args: { orderId: "A-1001" } })]]);
    expect(served).toHaveLength(2);

    const run = spans.find((s) => s.name === "gemini.automaticFunctionCalling")!;
    expect(run).toMatchObject({ type: "agent", parentUuid: root.uuid, status: "SUCCESS", integration: "Google GenAI", input: [{ role: "user", content: userAsks }], output: "Orders ship in 2 days.", availableTools: ["lookup_order"] });
    const steps = spans.filter((s) => s.parentUuid === run.uuid);
    expect(steps.map((s) => [s.type, s.name])).toEqual([
      ["llm", "gemini.generateContent"],
      ["tool", "lookup_order"],
      ["llm", "gemini.generateContent"],
    ]);
    const [first, call, second] = steps as [StoredSpan, StoredSpan, StoredSpan];
    const usage = await usageOf(served);
    expect(first).toMatchObject({
      status: "SUCCESS",
      model: "gemini-2.0-flash",
      provider: "Gemini",
      metricCollection: "answers",
      input: [{ role: "user", content: userAsks }],
      output: 'lookup_order({"orderId":"A-1001"})',
      toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }],
      ...usage[0],
    });
    expect(call).toMatchObject({ status: "SUCCESS", integration: "Google GenAI", description: "Finds an order", input: { orderId: "A-1001" }, output: { output: "order A-1001 shipped" } });
    expect(second).toMatchObject({
      status: "SUCCESS",
      input: [
        { role: "user", content: userAsks },
        { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})' },
        { role: "tool", content: '{"output":"order A-1001 shipped"}' },
      ],
      output: "Orders ship in 2 days.",
      ...usage[1],
    });
    expect(second.toolsCalled).toBeUndefined();
    // The tool ran after the first request and before the second.
    expect(call.startTime >= first.endTime! && call.endTime! <= second.startTime).toBe(true);
  });

  it("generateContentStream: the same, the llm spans ending with their streams and the agent span with the app's", async () => {
    const tool = orderTool();
    let text = "";
    const { spans, root, served } = await traced(async () => {
      const stream = await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [tool] } });
      for await (const chunk of stream) text += chunk.candidates?.[0]?.content?.role === "model" ? (chunk.candidates[0].content.parts?.[0]?.text ?? "") : "";
    });
    expect(text).toBe("Orders ship in 2 days.");
    expect(served).toHaveLength(2);
    const run = spans.find((s) => s.name === "gemini.automaticFunctionCalling")!;
    expect(run).toMatchObject({ type: "agent", parentUuid: root.uuid, status: "SUCCESS", output: "Orders ship in 2 days.", availableTools: ["lookup_order"] });
    const steps = spans.filter((s) => s.parentUuid === run.uuid);
    expect(steps.map((s) => [s.type, s.name, s.status])).toEqual([
      ["llm", "gemini.generateContentStream", "SUCCESS"],
      ["tool", "lookup_order", "SUCCESS"],
      ["llm", "gemini.generateContentStream", "SUCCESS"],
    ]);
    const usage = await usageOf(served);
    expect(steps[0]).toMatchObject({ output: 'lookup_order({"orderId":"A-1001"})', toolsCalled: [{ name: "lookup_order" }], ...usage[0] });
    expect(steps[1]).toMatchObject({ input: { orderId: "A-1001" }, output: { output: "order A-1001 shipped" } });
    expect(steps[2]).toMatchObject({ output: "Orders ship in 2 days.", ...usage[1] });
    // Nothing of the run is left outside it.
    expect(spans).toHaveLength(5);
  });

  it("a tool that throws: the app gets the SDK's rejection; the tool and agent spans are ERRORED, the request before is kept", async () => {
    const raw = await newClient()
      .models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [orderTool({ throws: true })] } })
      .catch((e: unknown) => e);
    let seen: unknown;
    const { spans } = await traced(async () => {
      seen = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [orderTool({ throws: true })] } }).catch((e: unknown) => e);
    });
    expect(seen).toBeInstanceOf(Error);
    expect((seen as Error).message).toBe((raw as Error).message);
    expect(spans.filter((s) => s.name !== "app").map((s) => [s.type, s.status])).toEqual([
      ["agent", "ERRORED"],
      ["llm", "SUCCESS"],
      ["tool", "ERRORED"],
    ]);
    expect(spans.find((s) => s.type === "tool")!.error).toContain("the warehouse is offline");
  });

  it("a function response that reports an error (the Gemini API's `error` key) is an ERRORED tool span; the run goes on", async () => {
    const { spans } = await traced(() => ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [orderTool({ reportsError: true })] } }));
    expect(spans.filter((s) => s.name !== "app").map((s) => [s.type, s.status])).toEqual([
      ["agent", "SUCCESS"],
      ["llm", "SUCCESS"],
      ["tool", "ERRORED"],
      ["llm", "SUCCESS"],
    ]);
    expect(spans.find((s) => s.type === "tool")!.error).toContain("no such order");
  });

  it("with two callable tools, a call is the span of the tool that answers it (from what each declared), not of both", async () => {
    const other: CallableTool = {
      tool: async () => ({ functionDeclarations: [{ name: "refund_order", parametersJsonSchema: { type: "object", properties: {} } }] }),
      callTool: async (calls: FunctionCall[]) => calls.filter((c) => c.name === "refund_order").map((c) => ({ functionResponse: { name: c.name, response: { output: "refunded" } } })),
    };
    const { spans } = await traced(() => ai.models.generateContent({ model: "gemini-2.0-flash", contents: "lookup_order please", config: { tools: [orderTool(), other] } }));
    expect(spans.filter((s) => s.type === "tool").map((s) => s.name)).toEqual(["lookup_order"]);
    expect(spans.find((s) => s.type === "agent" && s.name !== "app")!.availableTools).toEqual(["lookup_order", "refund_order"]);
  });
});

describe("wrapGoogleGenAI: automatic function calling stays invisible to the app", () => {
  it("gives the raw client's reply; a tool is patched in place (its keys kept), a frozen one just runs, and outside a run its calls record nothing", async () => {
    const strip = (r: object) => JSON.parse(JSON.stringify({ ...r, responseId: "", sdkHttpResponse: undefined }));
    const a = await newClient().models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [orderTool()] } });
    const tool = orderTool();
    const keys = Object.keys(tool);
    const frozen = Object.freeze(orderTool());
    let b: object | undefined;
    let direct: unknown;
    const { spans } = await traced(async () => {
      b = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [tool] } });
      await ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [frozen] } });
      direct = await tool.callTool([{ name: "lookup_order", args: { orderId: "D-1" } }]);
    });
    expect(strip(b!)).toEqual(strip(a));
    expect(b!.constructor).toBe(a.constructor);
    expect(Object.keys(tool)).toEqual(keys);
    expect(frozen.calls).toHaveLength(1);
    expect(direct).toEqual([{ functionResponse: { name: "lookup_order", response: { output: "order D-1 shipped" } } }]);
    const runs = spans.filter((s) => s.name === "gemini.automaticFunctionCalling");
    expect(runs).toHaveLength(2);
    // The frozen tool's run: its two requests, no tool span (it could not be patched).
    expect(spans.filter((s) => s.parentUuid === runs[1]!.uuid).map((s) => s.type)).toEqual(["llm", "llm"]);
    expect(spans.filter((s) => s.type === "tool")).toHaveLength(1);
  });

  it("a tool that calls the model itself: that call is one llm span under the tool span, not a step of the run", async () => {
    const tool = orderTool();
    const asking: CallableTool = {
      tool: tool.tool,
      callTool: async (calls: FunctionCall[]) => {
        await ai.models.generateContent({ model: "gemini-2.0-flash", contents: "summarise the order" });
        return tool.callTool(calls);
      },
    };
    const { spans } = await traced(() => ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [asking] } }));
    const call = spans.find((s) => s.type === "tool")!;
    const inner = spans.filter((s) => s.parentUuid === call.uuid);
    expect(inner.map((s) => [s.type, s.name])).toEqual([["llm", "gemini.generateContent"]]);
    expect(spans.filter((s) => s.type === "llm")).toHaveLength(3);
  });

  it("automaticFunctionCalling.disable: one call, one llm span, as without callable tools", async () => {
    const { spans, served } = await traced(async () => {
      const r = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [orderTool()], automaticFunctionCalling: { disable: true } } });
      expect(r.functionCalls?.[0]?.name).toBe("lookup_order");
    });
    expect(served).toHaveLength(1);
    expect(spans.filter((s) => s.name !== "app").map((s) => [s.type, s.name])).toEqual([["llm", "gemini.generateContent"]]);
  });
});

describe("wrapGoogleGenAI: the SDK's own callable tools are not changed (issue 42)", () => {
  /** An MCP client over the SDK's in-memory transport, its server answering lookup_order. */
  async function mcpClient(): Promise<Client> {
    const server = new McpServer({ name: "orders", version: "1.0.0" });
    server.registerTool("lookup_order", { description: "Finds an order", inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({ content: [{ type: "text", text: `order ${orderId} shipped` }] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "app", version: "1.0.0" });
    await client.connect(clientSide);
    return client;
  }

  it("mcpToTool's tool (a class with prototype methods): its calls are tool spans, and it reads as the one a raw client used (own keys, descriptors, util.inspect)", async () => {
    const rawTool = mcpToTool(await mcpClient());
    await newClient().models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [rawTool] } });
    const tool = mcpToTool(await mcpClient());
    const { spans } = await traced(() => ai.models.generateContent({ model: "gemini-2.0-flash", contents: userAsks, config: { tools: [tool] } }));
    expect(spans.filter((s) => s.type === "tool")).toMatchObject([{ name: "lookup_order", status: "SUCCESS", input: { orderId: "A-1001" } }]);
    expect(Object.hasOwn(tool, "callTool")).toBe(false);
    expect(objectShape(tool)).toEqual(objectShape(rawTool));
  });
});
