import { Settings as CoreSettings } from "@llamaindex/core/global";
import { OpenAI, OpenAIEmbedding } from "@llamaindex/openai";
import { AgentWorkflow, agent } from "@llamaindex/workflow";
import * as v12 from "llamaindex";
import * as v11 from "llamaindex-v11";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { instrumentLlamaIndex } from "../../src/integrations/llamaindex/index.js";
import { configureForTest } from "../helpers/sdk.js";

// How LlamaIndex's own objects read before anything is instrumented (issue 42: they read the same after).
const readsAs = (o: object) => ({ keys: Reflect.ownKeys(o).map(String), inspect: inspect(o, { showHidden: true, depth: 1 }).replace(/\d+/g, "#") });
const before = { settings: readsAs(v12.Settings), core: readsAs(CoreSettings), manager: readsAs(v12.Settings.callbackManager) };

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

/**
 * Both releases, with `@llamaindex/openai` 0.4 and `@llamaindex/workflow` as installed: 0.12
 * shares their `@llamaindex/core` (0.6.22); 0.11 has its own (0.6.21), so its retrievals are
 * dispatched on its `Settings` and the model calls on the other copy's: both are instrumented.
 */
const versions = [
  { release: "llamaindex 0.12", li: v12 as unknown as typeof v12, settings: [v12.Settings] },
  { release: "llamaindex 0.11", li: v11 as unknown as typeof v12, settings: [v11.Settings as unknown as typeof v12.Settings, CoreSettings] },
];

const model = () => new OpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });

async function traced<T>(fn: () => Promise<T>): Promise<{ result: T; spans: (typeof dev.state.traces)[string]["spans"] }> {
  let uuid = "";
  const result = await observe({ name: "app" }, async () => {
    uuid = currentTraceUuid()!;
    return fn();
  })();
  expect((await flush()).ok).toBe(true);
  return { result, spans: dev.state.traces[uuid]!.spans };
}

describe.each(versions)("instrumentLlamaIndex with $release", ({ li, settings }) => {
  beforeAll(() => {
    for (const s of settings) instrumentLlamaIndex(s, { AgentWorkflow });
    for (const s of settings) {
      s.llm = model();
      s.embedModel = new OpenAIEmbedding({ model: "text-embedding-3-small", apiKey: "sk-test", additionalSessionOptions: { baseURL: fake.url } });
    }
  });

  it("records a chat call as an llm span under the observe() span: model, messages, reply, token usage", async () => {
    const { result, spans } = await traced(() => model().chat({ messages: [{ role: "system", content: "Be brief" }, { role: "user", content: "When do orders ship?" }] }));
    expect(result.message.content).toBe("Orders ship in 2 days.");
    const app = spans.find((s) => s.name === "app")!;
    expect(spans.find((s) => s.type === "llm")).toMatchObject({
      name: "OpenAI",
      parentUuid: app.uuid,
      status: "SUCCESS",
      integration: "LlamaIndex",
      model: "gpt-4o-mini-2024-07-18",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      inputTokenCount: 11,
      outputTokenCount: 4,
    });
    expect(spans).toHaveLength(2);
  });

  it("records a RAG query: a retriever span with the query, the retrieved texts and the embedder, then an llm span with them as retrievalContext", async () => {
    const index = await li.VectorStoreIndex.fromDocuments([new li.Document({ text: "Orders ship in 2 days." }), new li.Document({ text: "Returns take 30 days." })]);
    const { result, spans } = await traced(() => index.asQueryEngine().query({ query: "How fast do orders ship?" }));
    expect(result.toString()).toBe("Orders ship in 2 days.");
    const app = spans.find((s) => s.name === "app")!;
    const retriever = spans.find((s) => s.type === "retriever")!;
    expect(retriever).toMatchObject({ name: "VectorIndexRetriever", parentUuid: app.uuid, input: "How fast do orders ship?", embedder: "text-embedding-3-small", status: "SUCCESS" });
    expect([...(retriever.retrievalContext as string[])].sort()).toEqual(["Orders ship in 2 days.", "Returns take 30 days."]);
    expect((retriever.output as { text: string }[]).map((n) => n.text).sort()).toEqual(["Orders ship in 2 days.", "Returns take 30 days."]);
    const llm = spans.find((s) => s.type === "llm")!;
    expect(llm).toMatchObject({ parentUuid: app.uuid, output: "Orders ship in 2 days.", status: "SUCCESS" });
    expect([...(llm.retrievalContext as string[])].sort()).toEqual(["Orders ship in 2 days.", "Returns take 30 days."]);
    expect(JSON.stringify(llm.input)).toContain("Orders ship in 2 days.");
  });

  it("records a workflow agent with a tool: an agent span with its tools, the tool span and both llm calls under it, the call named with its id", async () => {
    const lookup = li.tool({
      name: "getOrder",
      description: "Look up an order",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
      execute: (input: unknown) => `Order ${(input as { orderId: string }).orderId} ships tomorrow`,
    });
    const { result, spans } = await traced(() => agent({ tools: [lookup], llm: model() }).run("Where is order A-1001?"));
    expect(result.data.result).toBe("Orders ship in 2 days.");
    const app = spans.find((s) => s.name === "app")!;
    const run = spans.find((s) => s.type === "agent")!;
    expect(run).toMatchObject({ name: "Agent", parentUuid: app.uuid, availableTools: ["getOrder"], input: "Where is order A-1001?", output: "Orders ship in 2 days.", status: "SUCCESS" });
    const tool = spans.find((s) => s.type === "tool")!;
    expect(tool).toMatchObject({ name: "getOrder", parentUuid: run.uuid, input: { orderId: "A-1001" }, output: "Order A-1001 ships tomorrow", description: "Look up an order", metadata: { toolCallId: expect.stringMatching(/^call_/) } });
    const llms = spans.filter((s) => s.type === "llm");
    expect(llms.map((s) => s.parentUuid)).toEqual([run.uuid, run.uuid]);
    expect(llms[0]).toMatchObject({ toolsCalled: [{ name: "getOrder", inputParameters: { orderId: "A-1001" } }], output: 'getOrder({"orderId":"A-1001"})', metadata: { toolCallIds: [(tool.metadata as { toolCallId: string }).toolCallId] } });
    expect(llms[1]).toMatchObject({ output: "Orders ship in 2 days." });
    expect(JSON.stringify(llms[1]!.input)).toContain("Order A-1001 ships tomorrow");
  });

  it("ends a failing model call's llm span as ERRORED and rethrows LlamaIndex's own error", async () => {
    fake.failNext(500);
    let uuid = "";
    const call = observe({ name: "app" }, async () => {
      uuid = currentTraceUuid()!;
      return await settings[settings.length - 1]!.llm.chat({ messages: [{ role: "user", content: "hi" }] });
    })();
    await expect(call).rejects.toThrow(/500/);
    expect((await flush()).ok).toBe(true);
    const spans = dev.state.traces[uuid]!.spans;
    expect(spans.find((s) => s.type === "llm")).toMatchObject({ status: "ERRORED", error: expect.stringContaining("500") });
    expect(spans.find((s) => s.name === "app")).toMatchObject({ status: "ERRORED" });
  });
});

describe("instrumentLlamaIndex's contract", () => {
  it("leaves LlamaIndex's objects as they read: Settings, its callback manager and a watched LLM keep their own keys and util.inspect (issue 42)", async () => {
    for (const s of [v12.Settings, CoreSettings]) instrumentLlamaIndex(s, { AgentWorkflow });
    expect(readsAs(v12.Settings)).toEqual(before.settings);
    expect(readsAs(CoreSettings)).toEqual(before.core);
    expect(readsAs(v12.Settings.callbackManager)).toEqual(before.manager);
    const raw = model();
    const watched = model();
    v12.Settings.llm = watched;
    await observe({ name: "app" }, () => watched.chat({ messages: [{ role: "user", content: "hi" }] }))();
    expect(readsAs(watched)).toEqual(readsAs(raw));
  });


  it("throws a TypeError naming LlamaIndex's Settings for an argument that is not one", () => {
    expect(() => instrumentLlamaIndex({} as never)).toThrow(/instrumentLlamaIndex\(\) takes LlamaIndex's Settings/);
    expect(() => instrumentLlamaIndex(null as never)).toThrow(TypeError);
  });

  it("is idempotent (a second call returns the same undo, each call is still one span) and its undo stops recording", async () => {
    const undo = instrumentLlamaIndex(v12.Settings, { AgentWorkflow });
    expect(instrumentLlamaIndex(v12.Settings, { AgentWorkflow })).toBe(undo);
    const once = await traced(() => model().chat({ messages: [{ role: "user", content: "hi" }] }));
    expect(once.spans.filter((s) => s.type === "llm")).toHaveLength(1);
    undo();
    const after = await traced(() => model().chat({ messages: [{ role: "user", content: "hi" }] }));
    expect(after.spans.map((s) => s.name)).toEqual(["app"]);
  });
});
