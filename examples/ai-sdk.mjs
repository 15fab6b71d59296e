// The Vercel AI SDK, offline: its OpenTelemetry spans go through EvaltraceSpanProcessor in the
// app's own provider.   npm run build && node examples/ai-sdk.mjs
import { createOpenAI } from "@ai-sdk/openai";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs, tool } from "ai";
import { configure, EvaltraceSpanProcessor, flush, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeOpenAI } from "@evaltrace/dev/fakes";
import { z } from "zod";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeOpenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// The app's OTel provider (with its own exporters, if any) plus ours.
const provider = new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] });
const openai = createOpenAI({ apiKey: "sk-offline", baseURL: fake.url });

const { text } = await generateText({
  model: openai.chat("gpt-4o-mini"),
  prompt: "Where is order A-1001?",
  tools: { lookupOrder: tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }) => ({ orderId, status: "shipped" }) }) },
  stopWhen: stepCountIs(3),
  experimental_telemetry: { isEnabled: true, tracer: provider.getTracer("ai"), functionId: "support" },
});
console.log(text);
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
