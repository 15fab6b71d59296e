import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  Agent,
  MCPServerStreamableHttp,
  type Model,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  run,
  setDefaultOpenAIClient,
  setTraceProcessors,
  setTracingDisabled,
  tool,
} from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { EvaltraceTracingProcessor } from "../../src/integrations/openai-agents.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

// Issue 31: an agent with a function tool, a handoff and instructions, run by the real
// `@openai/agents` against the fake OpenAI API, recorded by EvaltraceTracingProcessor.

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let client: OpenAI;
let mcpHttp: Server;
let mcp: MCPServerStreamableHttp;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  client = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
  setDefaultOpenAIClient(client);
  setTraceProcessors([new EvaltraceTracingProcessor()]);
  setTracingDisabled(false);
  // A real MCP server over Streamable HTTP (stateless: one server per request).
  mcpHttp = createServer(async (req, res) => {
    const server = new McpServer({ name: "orders", version: "1.0.0" });
    server.registerTool("order_status", { description: "Order status", inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({ content: [{ type: "text", text: `order ${orderId} shipped` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    let body = "";
    for await (const chunk of req) body += chunk;
    await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
  });
  await new Promise<void>((resolve) => mcpHttp.listen(0, "127.0.0.1", resolve));
  mcp = new MCPServerStreamableHttp({ url: `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}/mcp`, name: "orders" });
  await mcp.connect();
});
afterAll(async () => {
  await mcp?.close();
  await new Promise((resolve) => mcpHttp?.close(resolve));
  await shutdown(0);
  await fake.close();
  await dev.close();
});

async function traced(fn: () => Promise<unknown>): Promise<{ out: unknown; spans: StoredSpan[] }> {
  let uuid = "";
  const out = await observe({ name: "app" }, async () => {
    uuid = currentTraceUuid()!;
    return fn();
  })();
  expect((await flush()).ok).toBe(true);
  return { out, spans: dev.state.traces[uuid]!.spans };
}

const byStart = (spans: StoredSpan[]) => [...spans].sort((a, b) => a.startTime.localeCompare(b.startTime));
const QUESTION = "Check order A-1001 with lookup_order, then transfer_to_Refunds";
const lookup = tool({
  name: "lookup_order",
  description: "Finds an order",
  parameters: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => `order ${orderId} shipped`,
});

/** The call ids the fake model gave, as the app sent them back with the results (last request). */
function sentCallIds(): string[] {
  const body = fake.requests.at(-1)!.body as { input?: { type?: string; call_id?: string }[]; messages?: { tool_calls?: { id: string }[] }[] };
  if (body.input) return body.input.filter((i) => i.type === "function_call").map((i) => i.call_id!);
  return (body.messages ?? []).flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
}

type Mode = { name: string; model: () => string | Model; stream: boolean; llmName: string };
const modes: Mode[] = [
  { name: "Responses (default), run()", model: () => "gpt-4.1-mini", stream: false, llmName: "response" },
  { name: "Responses (default), run() streamed", model: () => "gpt-4.1-mini", stream: true, llmName: "response" },
  { name: "Chat Completions, run()", model: () => new OpenAIChatCompletionsModel(client, "gpt-4.1-mini"), stream: false, llmName: "generation" },
];

/** Triage (instructions, a function tool, a handoff to Refunds) asked to use both in one turn. */
async function supportRun(mode: Mode) {
  const refunds = new Agent({ name: "Refunds", instructions: "Handle refunds", model: mode.model() });
  const triage = new Agent({ name: "Triage", instructions: "Route", tools: [lookup], handoffs: [refunds], model: mode.model() });
  const { out, spans } = await traced(async () => {
    if (!mode.stream) return (await run(triage, QUESTION)).finalOutput;
    const result = await run(triage, QUESTION, { stream: true });
    for await (const _event of result) {
      // consumed by the app
    }
    await result.completed;
    return result.finalOutput;
  });
  expect(out).toBe("Orders ship in 2 days.");
  const llm = byStart(spans.filter((s) => s.type === "llm"));
  expect(llm.map((s) => s.name)).toEqual([mode.llmName, mode.llmName]);
  return { llm, ids: sentCallIds() };
}

describe.each(modes)("EvaltraceTracingProcessor, $name", (mode) => {
  it("a tool-call turn's llm output names each call (the function tool's and the handoff's transfer_to_Refunds) and toolsCalled lists both by name", async () => {
    const { llm } = await supportRun(mode);
    expect(llm[0]!.output).toBe('lookup_order({"orderId":"A-1001"})\ntransfer_to_Refunds({})');
    expect(llm[0]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }, { name: "transfer_to_Refunds", inputParameters: {} }]);
    expect(llm[1]!.output).toBe("Orders ship in 2 days.");
    expect(llm[1]!.toolsCalled).toBeUndefined();
  });

  it("the next llm call's input holds the assistant's tool_calls (name, arguments, id) and each result as {role: tool, content: its text, tool_call_id}", async () => {
    const { llm, ids } = await supportRun(mode);
    expect(ids).toHaveLength(2);
    const [lookupId, handoffId] = ids;
    const messages = (llm[1]!.input as { role: string }[]).filter((m) => m.role !== "system");
    expect(messages).toEqual([
      { role: "user", content: QUESTION },
      {
        role: "assistant",
        content: 'lookup_order({"orderId":"A-1001"})\ntransfer_to_Refunds({})',
        tool_calls: [
          { id: lookupId, name: "lookup_order", arguments: { orderId: "A-1001" } },
          { id: handoffId, name: "transfer_to_Refunds", arguments: {} },
        ],
      },
      { role: "tool", content: "order A-1001 shipped", tool_call_id: lookupId },
      { role: "tool", content: '{"assistant":"Refunds"}', tool_call_id: handoffId },
    ]);
  });

  it("each llm call's input starts with its agent's instructions as a system message (Route, then Handle refunds)", async () => {
    const { llm } = await supportRun(mode);
    expect((llm[0]!.input as unknown[])[0]).toEqual({ role: "system", content: "Route" });
    expect((llm[0]!.input as unknown[]).slice(1)).toEqual([{ role: "user", content: QUESTION }]);
    expect((llm[1]!.input as unknown[])[0]).toEqual({ role: "system", content: "Handle refunds" });
  });

  it("an MCP tool's result is its text, not a content-part object: in the tool span's output and in the next llm input's tool message", async () => {
    const agent = new Agent({ name: "Orders", instructions: "Use tools", mcpServers: [mcp], model: mode.model() });
    const { out, spans } = await traced(async () => {
      if (!mode.stream) return (await run(agent, "Where is A-1001? order_status")).finalOutput;
      const result = await run(agent, "Where is A-1001? order_status", { stream: true });
      for await (const _event of result) {
        // consumed by the app
      }
      await result.completed;
      return result.finalOutput;
    });
    expect(out).toBe("Orders ship in 2 days.");
    expect(spans.filter((s) => s.type === "tool")).toEqual([expect.objectContaining({ name: "order_status", input: { orderId: "A-1001" }, output: "order A-1001 shipped" })]);
    const [, second] = byStart(spans.filter((s) => s.type === "llm"));
    const [callId] = sentCallIds();
    expect((second!.input as unknown[]).at(-1)).toEqual({ role: "tool", content: "order A-1001 shipped", tool_call_id: callId });
  });
});

describe("a wrapped OpenAI client (wrapOpenAI) driven by the Agents SDK", () => {
  it.each([
    ["Responses", "openai.responses", (c: OpenAI) => new OpenAIResponsesModel(c, "gpt-4.1-mini")],
    ["Chat Completions", "openai.chat.completions", (c: OpenAI) => new OpenAIChatCompletionsModel(c, "gpt-4.1-mini")],
  ] as const)("%s: the llm input keeps each call's id, on the assistant's tool_calls and as the tool message's tool_call_id", async (_api, spanName, model) => {
    const wrapped = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    const agent = new Agent({ name: "Support", instructions: "Be brief", tools: [lookup], model: model(wrapped) });
    const { spans } = await traced(async () => (await run(agent, "Where is order A-1001? lookup_order")).finalOutput);
    const calls = byStart(spans.filter((s) => s.name === spanName));
    expect(calls).toHaveLength(2);
    const [id] = sentCallIds();
    expect(calls[1]!.input).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: "Where is order A-1001? lookup_order" },
      { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})', tool_calls: [{ id, name: "lookup_order", arguments: { orderId: "A-1001" } }] },
      { role: "tool", content: "order A-1001 shipped", tool_call_id: id },
    ]);
  });
});
