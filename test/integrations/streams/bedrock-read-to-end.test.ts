import { BedrockRuntimeClient, ConverseStreamCommand, InvokeModelWithResponseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { describe, it } from "vitest";
import { startFakeBedrock } from "../../../src/fakes/index.js";
import { wrapBedrock } from "../../../src/integrations/bedrock/index.js";
import { expectEndedWithOutput, llmSpansOf, type SeenUsage, streamRig } from "./read-to-end.js";

// Issue 42, class 2, on @aws-sdk/client-bedrock-runtime: ConverseStream and
// InvokeModelWithResponseStream, read to their end, end the call's llm span with the output, the
// tokens the app saw and the tool call.

const rig = streamRig(startFakeBedrock);

const CLAUDE = "anthropic.claude-3-5-sonnet-20240620-v1:0";
const client = () => wrapBedrock(new BedrockRuntimeClient({ endpoint: rig.fake.url, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 }));
const schema = { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] };
const ask = "Where is my order? Use lookup_order.";

describe("@aws-sdk/client-bedrock-runtime: a stream read to its end ends its llm span with output, tokens and tool calls (issue 42)", () => {
  it("ConverseStream read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const tools = [{ toolSpec: { name: "lookup_order", description: "Finds an order", inputSchema: { json: schema as never } } }];
      const r = await client().send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: ask }] }], toolConfig: { tools } }));
      let usage: { inputTokens?: number; outputTokens?: number } | undefined;
      for await (const event of r.stream!) if (event.metadata) usage = event.metadata.usage;
      usages.push({ input: usage?.inputTokens ?? -1, output: usage?.outputTokens ?? -1 });
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("InvokeModelWithResponseStream (a Claude body) read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 100, messages: [{ role: "user", content: ask }], tools: [{ name: "lookup_order", input_schema: schema }] });
      const r = await client().send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body }));
      const usage = { input: -1, output: -1 };
      for await (const event of r.body!) {
        const e = JSON.parse(new TextDecoder().decode(event.chunk?.bytes)) as { type: string; message?: { usage: { input_tokens: number } }; usage?: { output_tokens: number } };
        if (e.type === "message_start") usage.input = e.message!.usage.input_tokens;
        if (e.type === "message_delta") usage.output = e.usage!.output_tokens;
      }
      usages.push(usage);
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });
});
