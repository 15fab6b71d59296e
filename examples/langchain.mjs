// LangChain.js and LangGraph.js, offline: a RAG chain with EvaltraceCallbackHandler, then a
// createReactAgent run traced for every call through instrumentLangChain() (no callbacks passed).
//   npm run build && node examples/langchain.mjs
import { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableLambda, RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { configure, flush, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeOpenAI } from "@evaltrace/dev/fakes";
import { EvaltraceCallbackHandler, instrumentLangChain } from "evaltrace/langchain";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeOpenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });
const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-offline", configuration: { baseURL: fake.url } });

// 1. A RAG chain, with the handler passed per call: the documents show on the retriever span
//    and as the llm span's retrievalContext.
class Policies extends BaseRetriever {
  lc_namespace = ["example"];
  async _getRelevantDocuments(query) {
    return [new Document({ pageContent: `Orders about ${query} ship in 2 days.`, metadata: { source: "shipping.md" } })];
  }
}
const rag = RunnableSequence.from([
  { context: new Policies().pipe(RunnableLambda.from((docs) => docs.map((d) => d.pageContent).join("\n"))), question: new RunnablePassthrough() },
  ChatPromptTemplate.fromMessages([["system", "Answer from:\n{context}"], ["human", "{question}"]]),
  model,
  new StringOutputParser(),
]);
console.log(await rag.invoke("shipping", { callbacks: [new EvaltraceCallbackHandler({ metricCollection: "answers" })] }));

// 2. Every LangChain / LangGraph run of the process, no callbacks: a ReAct agent is one agent span.
const undo = instrumentLangChain();
const lookup = tool(async ({ orderId }) => `order ${orderId} shipped`, {
  name: "lookup_order",
  description: "Finds an order",
  schema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
});
const agent = createReactAgent({ llm: model, tools: [lookup], name: "support_agent" });
const state = await agent.invoke({ messages: [{ role: "user", content: "Where is order A-1?" }] });
console.log(state.messages.at(-1).content);
undo();

await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
