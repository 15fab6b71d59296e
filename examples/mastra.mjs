// Mastra, offline: EvaltraceExporter turns Mastra's traces (an agent with a tool, a workflow)
// into evaltrace traces. Node 22.13+ only (what @mastra/core needs).
//   npm run build && node examples/mastra.mjs
import { createOpenAI } from "@ai-sdk/openai";
import { Mastra } from "@mastra/core";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { createStep, createWorkflow } from "@mastra/core/workflows";
import { Observability } from "@mastra/observability";
import { configure, flush, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeOpenAI } from "@evaltrace/dev/fakes";
import { EvaltraceExporter } from "evaltrace/mastra";
import { z } from "zod";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeOpenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

const openai = createOpenAI({ apiKey: "sk-offline", baseURL: fake.url });
const lookup = createTool({
  id: "lookup_order",
  description: "Finds an order",
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => ({ status: `order ${orderId} shipped` }),
});
const support = new Agent({ id: "support", name: "support", instructions: "Be brief", model: openai.chat("gpt-4o-mini"), tools: { lookup_order: lookup } });
const shout = createStep({
  id: "shout",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string() }),
  execute: async ({ inputData }) => ({ text: inputData.text.toUpperCase() }),
});
const shouter = createWorkflow({ id: "shouter", inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ text: z.string() }) }).then(shout).commit();

const mastra = new Mastra({
  agents: { support },
  workflows: { shouter },
  logger: false,
  observability: new Observability({ configs: { evaltrace: { serviceName: "support", exporters: [new EvaltraceExporter()] } } }),
});

console.log((await mastra.getAgent("support").generate("Where is order A-1001?")).text);
const run = await mastra.getWorkflow("shouter").createRun();
console.log((await run.start({ inputData: { text: "hello" } })).status);
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
