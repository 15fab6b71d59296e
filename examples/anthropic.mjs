// The Anthropic SDK integration, offline: the real @anthropic-ai/sdk package against the fake
// Anthropic server and the local emulator.   npm run build && node examples/anthropic.mjs
import Anthropic from "@anthropic-ai/sdk";
import { configure, flush, observe, shutdown } from "evaltrace";
import { wrapAnthropic } from "evaltrace/anthropic";
import { startDevServer } from "@evaltrace/dev";
import { startFakeAnthropic } from "@evaltrace/dev/fakes";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeAnthropic();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// One line instruments the client (in place: it is still the app's own object).
const anthropic = wrapAnthropic(new Anthropic({ apiKey: "sk-ant-offline", baseURL: fake.url }), { metricCollection: "answers" });

const tools = [{ name: "lookup_order", description: "Finds an order", input_schema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } }];
const lookupOrder = observe({ type: "tool", name: "lookup_order" }, async ({ orderId }) => `order ${orderId} shipped yesterday`);

const answer = observe({ type: "agent", name: "support-agent" }, async (question) => {
  const messages = [{ role: "user", content: question }];
  const first = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 256, system: "You are a support bot.", tools, messages });
  const use = first.content.find((b) => b.type === "tool_use");
  messages.push({ role: "assistant", content: first.content });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: await lookupOrder(use.input) }] });
  // The SDK's streaming helper is traced too: one span when the stream ends.
  const stream = anthropic.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 256, system: "You are a support bot.", tools, messages });
  return stream.finalText();
});
console.log(await answer("Where is my order?"));
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
