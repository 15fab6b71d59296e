// The Amazon Bedrock integration, offline: the real @aws-sdk/client-bedrock-runtime package
// against the fake Bedrock Runtime and the local emulator.   npm run build && node examples/bedrock.mjs
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { configure, flush, observe, shutdown } from "evaltrace";
import { wrapBedrock } from "evaltrace/bedrock";
import { startDevServer } from "@evaltrace/dev";
import { startFakeBedrock } from "@evaltrace/dev/fakes";
import { printTraces } from "./print-traces.mjs";

// The AWS SDK warns on Node 20 that its releases after January 2027 need Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const fake = await startFakeBedrock();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// One line instruments the client (in place: it is still the app's own object).
const bedrock = wrapBedrock(new BedrockRuntimeClient({ endpoint: fake.url, region: "us-east-1", credentials: { accessKeyId: "offline", secretAccessKey: "offline" } }), {
  metricCollection: "answers",
});

const modelId = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const toolConfig = { tools: [{ toolSpec: { name: "lookup_order", description: "Finds an order", inputSchema: { json: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } } } }] };
const lookupOrder = observe({ type: "tool", name: "lookup_order" }, async ({ orderId }) => `order ${orderId} shipped yesterday`);

const answer = observe({ type: "agent", name: "support-agent" }, async (question) => {
  const messages = [{ role: "user", content: [{ text: question }] }];
  const first = await bedrock.send(new ConverseCommand({ modelId, system: [{ text: "You are a support bot." }], toolConfig, messages }));
  const use = first.output.message.content.find((b) => b.toolUse).toolUse;
  messages.push(first.output.message);
  messages.push({ role: "user", content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ text: await lookupOrder(use.input) }] } }] });
  // A streamed call is traced too: one span when the stream ends.
  const streamed = await bedrock.send(new ConverseStreamCommand({ modelId, system: [{ text: "You are a support bot." }], toolConfig, messages }));
  let text = "";
  for await (const event of streamed.stream) text += event.contentBlockDelta?.delta?.text ?? "";
  return text;
});
console.log(await answer("Where is my order?"));
await flush();
printTraces(dev);
await shutdown();
bedrock.destroy();
await dev.close();
await fake.close();
