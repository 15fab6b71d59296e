import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../../src/fakes/index.js";
import { currentTraceUuid, deliver, observe } from "../../../src/index.js";
import { wrapOpenAI } from "../../../src/integrations/openai/index.js";
import { expectEndedWithOutput, llmSpansOf, type SeenUsage, streamRig } from "./read-to-end.js";

// Issue 42, class 2, on openai 6: every streaming helper, its stream read to its end (and its
// final result awaited), ends each call's llm span with the output, the tokens the app saw and
// the tool call.

const rig = streamRig(startFakeOpenAI);

type ChatUsage = { prompt_tokens: number; completion_tokens: number } | null | undefined;
type ResponseUsage = { input_tokens: number; output_tokens: number } | null | undefined;
const chatSeen = (u: ChatUsage): SeenUsage => ({ input: u?.prompt_tokens ?? -1, output: u?.completion_tokens ?? -1 });
const responseSeen = (u: ResponseUsage): SeenUsage => ({ input: u?.input_tokens ?? -1, output: u?.output_tokens ?? -1 });
const client = () => wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: rig.fake.url, maxRetries: 0 }));
const schema = { type: "object" as const, properties: { orderId: { type: "string" } }, required: ["orderId"] };
const chatTools = [{ type: "function" as const, function: { name: "lookup_order", description: "Finds an order", parameters: schema } }];
const responseTools = [{ type: "function" as const, name: "lookup_order", description: "Finds an order", parameters: schema, strict: false }];
const chat = { model: "gpt-4o-mini", tools: chatTools, messages: [{ role: "user" as const, content: "Where is my order? Use lookup_order." }] };
const responses = { model: "gpt-4o-mini", tools: responseTools, input: "Where is my order? Use lookup_order." };
type ResponseEvent = { type: string; response?: { usage?: ResponseUsage } };

/** The usage of a Responses stream's `response.completed` event, reading the stream to its end. */
async function drainResponses(stream: AsyncIterable<unknown>): Promise<SeenUsage> {
  let usage: ResponseUsage;
  for await (const e of stream as AsyncIterable<ResponseEvent>) if (e.type === "response.completed") usage = e.response?.usage;
  return responseSeen(usage);
}

describe("openai: a stream read to its end ends its llm span with output, tokens and tool calls (issue 42)", () => {
  it("chat.completions.create({ stream: true }) read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const stream = await client().chat.completions.create({ ...chat, stream: true, stream_options: { include_usage: true } });
      let usage: ChatUsage;
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
      usages.push(chatSeen(usage));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("chat.completions.stream() read with for await, then finalChatCompletion()", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const stream = client().chat.completions.stream({ ...chat, stream_options: { include_usage: true } });
      for await (const _chunk of stream);
      usages.push(chatSeen((await stream.finalChatCompletion()).usage));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  for (const stream of [true, false]) {
    it(`chat.completions.runTools(${stream ? "{ stream: true }" : ""}) read to its end, then finalChatCompletion()`, async () => {
      const usages: SeenUsage[] = [];
      const llm = await llmSpansOf(rig.dev, async () => {
        const tools = [{ type: "function" as const, function: { name: "lookup_order", description: "Finds an order", parameters: schema, function: () => "order A-1001 shipped", parse: JSON.parse } }];
        const runner = client().chat.completions.runTools({ ...chat, tools, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) } as never) as unknown as {
          on(event: "chatCompletion", f: (c: { usage?: ChatUsage }) => void): void;
          finalChatCompletion(): Promise<unknown>;
        } & Partial<AsyncIterable<unknown>>;
        runner.on("chatCompletion", (c) => usages.push(chatSeen(c.usage)));
        if (stream) for await (const _chunk of runner as AsyncIterable<unknown>);
        await runner.finalChatCompletion();
      });
      expect(usages.length).toBe(2);
      expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
    });
  }

  it("responses.create({ stream: true }) read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      usages.push(await drainResponses(await client().responses.create({ ...responses, stream: true })));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("responses.stream() read with for await, then finalResponse()", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const stream = client().responses.stream(responses);
      for await (const _e of stream);
      usages.push(responseSeen((await stream.finalResponse()).usage));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("beta.responses.create({ stream: true }) read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const beta = (client() as unknown as { beta: { responses: { create(p: unknown): Promise<AsyncIterable<unknown>> } } }).beta;
      usages.push(await drainResponses(await beta.responses.create({ ...responses, stream: true })));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("an agent that returns the SDK's stream (the app reads it after): the agent's output says it returned a stream, the llm span has the text", async () => {
    let uuid = "";
    const agent = observe({ type: "agent", name: "stream-agent" }, async () => {
      uuid = currentTraceUuid()!;
      return client().chat.completions.create({ ...chat, stream: true });
    });
    const stream = await agent();
    for await (const _chunk of stream);
    await deliver(undefined, 5000);
    const spans = rig.dev.state.traces[uuid]!.spans;
    expect(spans.find((s) => s.name === "stream-agent")?.output).toBe("[stream Stream]");
    expect(spans.find((s) => s.type === "llm")).toMatchObject({ status: "SUCCESS" });
    expect(typeof spans.find((s) => s.type === "llm")?.output).toBe("string");
    expect(rig.log.lines.filter((l) => !l.startsWith("debug"))).toEqual([]);
  });
});
