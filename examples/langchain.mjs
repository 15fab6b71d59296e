// LangChain.js, offline: EvaltraceCallbackHandler on a prompt | model | parser chain.
//   npm run build && node examples/langchain.mjs
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { ChatOpenAI } from "@langchain/openai";
import { configure, flush, shutdown } from "evaltrace";
import { startDevServer, startFakeOpenAI } from "evaltrace/devserver";
import { EvaltraceCallbackHandler } from "evaltrace/langchain";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeOpenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-offline", configuration: { baseURL: fake.url } });
const chain = ChatPromptTemplate.fromMessages([["system", "Be brief"], ["human", "{question}"]]).pipe(model).pipe(new StringOutputParser());
console.log(await chain.invoke({ question: "When do orders ship?" }, { callbacks: [new EvaltraceCallbackHandler({ metricCollection: "answers" })] }));
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
