// The OpenAI Agents SDK, offline: EvaltraceTracingProcessor records agents, generations, tools.
//   npm run build && node examples/openai-agents.mjs
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTraceProcessors, setTracingDisabled, tool } from "@openai/agents";
import { configure, flush, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeOpenAI } from "@evaltrace/dev/fakes";
import { EvaltraceTracingProcessor } from "evaltrace/openai-agents";
import OpenAI from "openai";
import { z } from "zod";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeOpenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-offline", baseURL: fake.url }));
setOpenAIAPI("chat_completions");
setTraceProcessors([new EvaltraceTracingProcessor()]); // replaces the SDK's exporter to OpenAI
setTracingDisabled(false);

const lookup = tool({ name: "lookup_order", description: "Finds an order", parameters: z.object({ orderId: z.string() }), execute: async ({ orderId }) => `order ${orderId} shipped` });
const agent = new Agent({ name: "Support", instructions: "Be brief", tools: [lookup], model: "gpt-4o-mini" });
console.log((await run(agent, "Where is order A-1001?")).finalOutput);
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
