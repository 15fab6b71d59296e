import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { startFakeAnthropic } from "../../../src/fakes/index.js";
import { wrapAnthropic } from "../../../src/integrations/anthropic.js";
import { expectEndedWithOutput, llmSpansOf, type SeenUsage, streamRig } from "./read-to-end.js";

// Issue 42, class 2, on @anthropic-ai/sdk: every streaming helper, its stream read to its end
// (and its final message awaited), ends each call's llm span with the output, the tokens the app
// saw and the tool call. The tool runner's streams were force-ended at exit before: its message
// thread parses each call's response on a promise of its own.

const rig = streamRig(startFakeAnthropic);

type Usage = { input_tokens: number; output_tokens: number };
type Final = { usage: Usage; content: unknown[] };
type HelperStream = AsyncIterable<unknown> & { finalMessage(): Promise<Final> };
const seen = (u: Usage): SeenUsage => ({ input: u.input_tokens, output: u.output_tokens });
const tool = { name: "lookup_order", description: "Finds an order", input_schema: { type: "object" as const, properties: { orderId: { type: "string" } }, required: ["orderId"] } };
const ask = [{ role: "user" as const, content: "Where is my order? Use lookup_order." }];
const params = { model: "claude-sonnet-4-6", max_tokens: 100, tools: [tool], messages: ask };
const client = () => wrapAnthropic(new Anthropic({ apiKey: "sk-ant-test", baseURL: rig.fake.url, maxRetries: 0 }));

/** Reads a helper's stream to its end, then awaits its final message. */
async function drain(stream: HelperStream): Promise<SeenUsage> {
  for await (const _event of stream);
  return seen((await stream.finalMessage()).usage);
}

describe("@anthropic-ai/sdk: a stream read to its end ends its llm span with output, tokens and tool calls (issue 42)", () => {
  it("messages.create({ stream: true }) read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const stream = await client().messages.create({ ...params, stream: true });
      let usage: Usage = { input_tokens: 0, output_tokens: 0 };
      for await (const e of stream) {
        if (e.type === "message_start") usage = { ...usage, input_tokens: e.message.usage.input_tokens };
        if (e.type === "message_delta") usage = { ...usage, output_tokens: e.usage.output_tokens };
      }
      usages.push(seen(usage));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("messages.stream() read with for await, then finalMessage()", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      usages.push(await drain(client().messages.stream(params) as unknown as HelperStream));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("beta.messages.stream() read with for await, then finalMessage()", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      usages.push(await drain(client().beta.messages.stream(params) as unknown as HelperStream));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("beta.messages.toolRunner({ stream: true }): each turn's stream read with for await, then finalMessage()", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const runner = client().beta.messages.toolRunner({ ...params, stream: true, max_iterations: 3, tools: [{ ...tool, run: () => "order A-1001 shipped" }] } as never);
      for await (const stream of runner as unknown as AsyncIterable<HelperStream>) usages.push(await drain(stream));
    });
    expect(usages.length).toBe(2);
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("beta.messages.toolRunner() not streamed: each turn's message", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const runner = client().beta.messages.toolRunner({ ...params, max_iterations: 3, tools: [{ ...tool, run: () => "order A-1001 shipped" }] } as never);
      for await (const message of runner as unknown as AsyncIterable<Final>) usages.push(seen(message.usage));
    });
    expect(usages.length).toBe(2);
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });
});
