import { Document } from "@langchain/core/documents";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableLambda, RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
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

class Policies extends BaseRetriever {
  lc_namespace = ["test"];
  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    return [
      new Document({ pageContent: `Orders about ${query} ship in 2 days.`, metadata: { source: "shipping.md", page: 1 } }),
      new Document({ pageContent: "Returns are free for 30 days.", metadata: { source: "returns.md" } }),
    ];
  }
}

async function traced<T>(fn: () => Promise<T>) {
  let uuid = "";
  let result: T | undefined;
  // The app's span returns nothing: observe() captures a returned LangChain object as it is.
  await observe({ name: "app" }, async () => {
    uuid = currentTraceUuid()!;
    result = await fn();
  })();
  expect((await flush()).ok).toBe(true);
  const spans = dev.state.traces[uuid]!.spans;
  // Nothing the emulator stored for the trace is a LangChain serialization blob.
  expect(JSON.stringify(dev.state.traces[uuid])).not.toMatch(/\\?"lc\\?"\s*:\s*1/);
  return { result: result as T, spans, by: (name: string) => spans.find((s) => s.name === name)! };
}

describe("EvaltraceCallbackHandler: readable values", () => {
  it("a RAG chain: documents as the retriever's output and retrievalContext, and as the retrievalContext of the llm call that follows", async () => {
    const handler = new EvaltraceCallbackHandler({ metricCollection: "rag" });
    const join = RunnableLambda.from((docs: Document[]) => docs.map((d) => d.pageContent).join("\n")).withConfig({ runName: "join_docs" });
    const chain = RunnableSequence.from([
      { context: new Policies().pipe(join), question: new RunnablePassthrough() },
      ChatPromptTemplate.fromMessages([
        ["system", "Answer from:\n{context}"],
        ["human", "{question}"],
      ]),
      model(),
      new StringOutputParser(),
    ]);
    const { result, spans, by } = await traced(() => chain.invoke("shipping", { callbacks: [handler] }));
    expect(result).toBe("Orders ship in 2 days.");
    const texts = ["Orders about shipping ship in 2 days.", "Returns are free for 30 days."];
    expect(by("Policies")).toMatchObject({
      type: "retriever",
      input: "shipping",
      output: [
        { pageContent: texts[0], metadata: { source: "shipping.md", page: 1 } },
        { pageContent: texts[1], metadata: { source: "returns.md" } },
      ],
      retrievalContext: texts,
    });
    const llm = spans.find((s) => s.type === "llm")!;
    expect(llm).toMatchObject({
      retrievalContext: texts,
      input: [
        { role: "system", content: `Answer from:\n${texts.join("\n")}` },
        { role: "user", content: "shipping" },
      ],
      output: "Orders ship in 2 days.",
      llmTestCase: { input: "shipping", actualOutput: "Orders ship in 2 days.", retrievalContext: texts },
    });
    // The prompt's output is its messages, readable; the chain's input and output are text.
    expect(JSON.parse(by("ChatPromptTemplate").output as string)).toEqual([
      { role: "system", content: `Answer from:\n${texts.join("\n")}` },
      { role: "user", content: "shipping" },
    ]);
    // LangChain hands a lambda a list wrapped as {input}.
    expect(JSON.parse(by("join_docs").input as string)).toEqual({
      input: [
        { pageContent: texts[0], metadata: { source: "shipping.md", page: 1 } },
        { pageContent: texts[1], metadata: { source: "returns.md" } },
      ],
    });
  });

  it("retrieval context stays in its own run: a separate chain's llm call gets none", async () => {
    const handler = new EvaltraceCallbackHandler();
    const { spans } = await traced(async () => {
      await new Policies().invoke("shipping", { callbacks: [handler] });
      return model().invoke("hi", { callbacks: [handler] });
    });
    expect(spans.find((s) => s.type === "llm")!.retrievalContext).toBeUndefined();
  });

  it("a tool-calling model: toolsCalled, the calls as the reply, and tool calls and results kept in the next input", async () => {
    const handler = new EvaltraceCallbackHandler();
    const bound = model().bindTools([{ type: "function", function: { name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } } }]);
    const { result, spans } = await traced(async () => {
      const first = await bound.invoke([new SystemMessage("Be brief"), new HumanMessage("Where is order A-1?")], { callbacks: [handler] });
      const call = first.tool_calls![0]!;
      const second = await bound.invoke(
        [new SystemMessage("Be brief"), new HumanMessage("Where is order A-1?"), first, new ToolMessage({ content: "order A-1001 shipped", tool_call_id: call.id!, name: call.name })],
        { callbacks: [handler] },
      );
      return [first.tool_calls, second.content];
    });
    expect(result).toEqual([[{ name: "lookup_order", args: { orderId: "A-1001" }, id: "call_1", type: "tool_call" }], "Orders ship in 2 days."]);
    const [first, second] = spans.filter((s) => s.type === "llm").sort((a, b) => a.startTime.localeCompare(b.startTime));
    expect(first).toMatchObject({ output: 'lookup_order({"orderId":"A-1001"})', toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }] });
    expect(second).toMatchObject({
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Where is order A-1?" },
        { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})' },
        { role: "tool", content: "order A-1001 shipped" },
      ],
      output: "Orders ship in 2 days.",
    });
  });

  it("hostile values: throwing getters, cycles, huge strings, BigInt in inputs, outputs and documents; the app gets its values untouched", async () => {
    const handler = new EvaltraceCallbackHandler();
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const huge = "x".repeat(3_000_000);
    const hostile = {
      cyclic,
      huge,
      big: 10n,
      get boom(): string {
        throw new Error("getter boom");
      },
      message: new AIMessage({ content: "hi", tool_calls: [{ name: "t", args: { a: 1 }, id: "c1" }] }),
    };
    const echo = RunnableLambda.from((x: typeof hostile) => x).withConfig({ runName: "echo" });
    const docs = [new Document({ pageContent: huge, metadata: cyclic }), Object.defineProperty(new Document({ pageContent: "ok" }), "metadata", { get: () => { throw new Error("meta boom"); } })];
    const retriever = RunnableLambda.from(() => docs);
    const { result, by } = await traced(async () => [await echo.invoke(hostile, { callbacks: [handler] }), await retriever.invoke("q", { callbacks: [handler] })]);
    expect(result[0]).toBe(hostile);
    expect(result[1]).toBe(docs);
    const input = by("echo").input as string;
    expect(input.length).toBeLessThan(1_000_000);
    expect(input).toContain("<circular>");
    expect(input).toContain('"big":"10"');
    expect(input).toContain('"message":{"role":"assistant","content":"hi","tool_calls":[{"name":"t","id":"c1","args":{"a":1}}]}');
    expect(by("echo").status).toBe("SUCCESS");
    // The documents (LangChain wraps a list output as {output}): the huge text bounded: the huge text bounded, the cyclic metadata marked, the throwing one empty.
    const docsOut = (JSON.parse(by("RunnableLambda").output as string) as { output: { pageContent: string; metadata: unknown }[] }).output;
    expect(docsOut[0]!.pageContent.length).toBeLessThan(100_000);
    expect(docsOut[0]!.metadata).toEqual({ name: "loop", self: "<circular>" });
    expect(docsOut[1]).toEqual({ pageContent: "ok", metadata: {} });
  });

  it("never throws into LangChain: a handler fed garbage keeps quiet and opens nothing it cannot end", () => {
    const handler = new EvaltraceCallbackHandler();
    const garbage = [undefined, null, 42, "x", { get id() { throw new Error("boom"); } }, new Proxy({}, { get() { throw new Error("trap"); } })] as never[];
    for (const g of garbage) {
      expect(() => handler.handleChainStart(g, g, "r1", g, g, g, g, g)).not.toThrow();
      expect(() => handler.handleChatModelStart(g, g, "r2", g, g, g, g, g)).not.toThrow();
      expect(() => handler.handleLLMEnd(g, "r2")).not.toThrow();
      expect(() => handler.handleChainEnd(g, "r1")).not.toThrow();
      expect(() => handler.handleRetrieverStart(g, g, "r3", g, g, g, g)).not.toThrow();
      expect(() => handler.handleRetrieverEnd(g, "r3")).not.toThrow();
      expect(() => handler.handleToolStart(g, g, "r4", g, g, g, g)).not.toThrow();
      expect(() => handler.handleToolError(g, "r4")).not.toThrow();
    }
    expect((handler as unknown as { runs: Map<string, unknown> }).runs.size).toBe(0);
  });
});
