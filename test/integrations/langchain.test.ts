import { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableSequence } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
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

class Docs extends BaseRetriever {
  lc_namespace = ["test"];
  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    return [new Document({ pageContent: `Orders about ${query} ship in 2 days.` })];
  }
}

describe("EvaltraceCallbackHandler with the real LangChain.js", () => {
  it("maps a chain, its chat model, a retriever and a tool, nested under the observe() span", async () => {
    const handler = new EvaltraceCallbackHandler({ metricCollection: "answers" });
    const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: fake.url }, maxRetries: 0 });
    const chain = RunnableSequence.from([ChatPromptTemplate.fromMessages([["system", "Be brief"], ["human", "{question}"]]), model, new StringOutputParser()]);
    const lookup = tool(async ({ orderId }: { orderId: string }) => `order ${orderId} shipped`, {
      name: "lookup_order",
      description: "Finds an order",
      schema: z.object({ orderId: z.string() }),
    });
    let uuid = "";
    const answer = await observe({ type: "agent", name: "app" }, async () => {
      uuid = currentTraceUuid()!;
      const docs = await new Docs().invoke("shipping", { callbacks: [handler] });
      const status = await lookup.invoke({ orderId: "A-1" }, { callbacks: [handler] });
      return [docs.length, status, await chain.invoke({ question: "When do orders ship?" }, { callbacks: [handler] })];
    })();
    expect(answer).toEqual([1, "order A-1 shipped", "Orders ship in 2 days."]);
    expect((await flush()).ok).toBe(true);

    const spans = dev.state.traces[uuid]!.spans;
    const by = (name: string) => spans.find((s) => s.name === name)!;
    const app = by("app");
    expect(by("Docs")).toMatchObject({ type: "retriever", parentUuid: app.uuid, input: "shipping", output: [{ pageContent: "Orders about shipping ship in 2 days.", metadata: {} }], retrievalContext: ["Orders about shipping ship in 2 days."], integration: "LangChain" });
    expect(by("lookup_order")).toMatchObject({ type: "tool", parentUuid: app.uuid, input: { orderId: "A-1" }, output: "order A-1 shipped" });
    const sequence = by("RunnableSequence");
    expect(sequence).toMatchObject({ type: "base", parentUuid: app.uuid });
    const llm = spans.find((s) => s.type === "llm")!;
    expect(llm).toMatchObject({
      name: "ChatOpenAI",
      parentUuid: sequence.uuid,
      model: "gpt-4o-mini-2024-07-18",
      provider: "OpenAI",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      inputTokenCount: 11,
      outputTokenCount: 4,
      metricCollection: "answers",
      llmTestCase: { input: "When do orders ship?", actualOutput: "Orders ship in 2 days." },
    });
    // The prompt and the parser are chain steps inside the sequence.
    expect(spans.filter((s) => s.parentUuid === sequence.uuid).map((s) => s.name).sort()).toEqual(["ChatOpenAI", "ChatPromptTemplate", "StrOutputParser"]);
  });

  it("records a failing model call as an errored llm span", async () => {
    const handler = new EvaltraceCallbackHandler();
    const model = new ChatOpenAI({ model: "boom", apiKey: "sk-test", configuration: { baseURL: fake.url }, maxRetries: 0 });
    let uuid = "";
    await observe({ name: "failing" }, async () => {
      uuid = currentTraceUuid()!;
      await model.invoke("hi", { callbacks: [handler] }).catch(() => undefined);
    })();
    await flush();
    expect(dev.state.traces[uuid]!.spans.find((s) => s.type === "llm")).toMatchObject({ status: "ERRORED", error: expect.stringContaining("boom") });
  });
});
