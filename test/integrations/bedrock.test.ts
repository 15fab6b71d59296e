import {
  BedrockRuntime,
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ListAsyncInvokesCommand,
  type Message,
  ThrottlingException,
  type Tool,
} from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeBedrock, startFakeBedrock } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapBedrock } from "../../src/integrations/bedrock/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { expectStreamTimings } from "../helpers/stream-timings.js";

let dev: DevServer;
let fake: FakeBedrock;
let bedrock: BedrockRuntimeClient;

/** A real client against the fake (HTTP/2, as the SDK's default handler speaks), with `headers` on every request. */
function newClient(headers: Record<string, string> = {}): BedrockRuntimeClient {
  const client = new BedrockRuntimeClient({ endpoint: fake.url, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 });
  if (Object.keys(headers).length > 0) {
    client.middlewareStack.add(
      (next) => (args) => {
        Object.assign((args.request as { headers: Record<string, string> }).headers, headers);
        return next(args);
      },
      { step: "build", name: "fakeHeaders" },
    );
  }
  return client;
}

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeBedrock();
  configureForTest(dev.url, dev.projectKey);
  bedrock = wrapBedrock(newClient(), { metricCollection: "answers" });
});
afterAll(async () => {
  await shutdown(0);
  bedrock.destroy();
  await fake.close();
  await dev.close();
});

/** Runs `fn` in a root span and returns the llm spans the emulator stored for that trace. */
async function llmSpans(fn: () => Promise<unknown>): Promise<{ root: StoredSpan; llm: StoredSpan[] }> {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  const spans = dev.state.traces[uuid]!.spans;
  return { root: spans.find((s) => s.name === "agent")!, llm: spans.filter((s) => s.type === "llm") };
}

const CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const REPLY = "Orders ship in 2 days.";
const tools: Tool[] = [{ toolSpec: { name: "lookup_order", description: "Finds an order", inputSchema: { json: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } } } }];
const ask: Message[] = [{ role: "user", content: [{ text: "When do orders ship?" }] }];
const claudeBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 100, system: "Be brief", messages: [{ role: "user", content: "When do orders ship?" }], ...extra });
const decode = (bytes: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;

describe("wrapBedrock with the real @aws-sdk/client-bedrock-runtime against the fake", () => {
  it("Converse: one llm span with model id, provider Bedrock, system prompt and messages, output, the usage's token counts", async () => {
    let usage: { inputTokens?: number; outputTokens?: number } | undefined;
    const { root, llm } = await llmSpans(async () => {
      const r = await bedrock.send(new ConverseCommand({ modelId: CLAUDE, system: [{ text: "Be brief" }], messages: ask }));
      expect(r.output?.message?.content?.[0]).toEqual({ text: REPLY });
      usage = r.usage;
    });
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({
      name: "bedrock.converse",
      parentUuid: root.uuid,
      status: "SUCCESS",
      model: CLAUDE,
      provider: "Bedrock",
      integration: "Bedrock",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: REPLY,
      inputTokenCount: usage!.inputTokens,
      outputTokenCount: usage!.outputTokens,
      metricCollection: "answers",
      llmTestCase: { input: "When do orders ship?", actualOutput: REPLY },
      metadata: { stopReason: "end_turn", latencyMs: 42, requestId: expect.any(String) },
    });
  });

  it("ConverseStream: the stream yields the SDK's events; the span ends at its end with the text and the metadata event's usage", async () => {
    const events: string[] = [];
    let usage: { inputTokens?: number; outputTokens?: number } | undefined;
    const { llm } = await llmSpans(async () => {
      const r = await bedrock.send(new ConverseStreamCommand({ modelId: CLAUDE, system: [{ text: "Be brief" }], messages: ask }));
      let text = "";
      for await (const event of r.stream!) {
        events.push(Object.keys(event)[0]!);
        if (event.contentBlockDelta?.delta?.text) text += event.contentBlockDelta.delta.text;
        if (event.metadata) usage = event.metadata.usage;
      }
      expect(text).toBe(REPLY);
    });
    expect(events).toEqual(["messageStart", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"]);
    expect(llm[0]).toMatchObject({
      name: "bedrock.converse_stream",
      status: "SUCCESS",
      model: CLAUDE,
      output: REPLY,
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      inputTokenCount: usage!.inputTokens,
      outputTokenCount: usage!.outputTokens,
      metadata: { stopReason: "end_turn" },
    });
  });

  it("InvokeModel with a Claude body: input from the Anthropic body, output and tokens from the reply body's usage", async () => {
    let reply: Record<string, unknown> = {};
    const { llm } = await llmSpans(async () => {
      const r = await bedrock.send(new InvokeModelCommand({ modelId: CLAUDE, contentType: "application/json", body: claudeBody() }));
      reply = decode(r.body);
      expect(reply).toMatchObject({ type: "message", content: [{ type: "text", text: REPLY }] });
    });
    const usage = reply.usage as { input_tokens: number; output_tokens: number };
    expect(llm[0]).toMatchObject({
      name: "bedrock.invoke_model",
      status: "SUCCESS",
      model: CLAUDE,
      provider: "Bedrock",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: REPLY,
      inputTokenCount: usage.input_tokens,
      outputTokenCount: usage.output_tokens,
      metadata: { modelFamily: "Anthropic", stopReason: "end_turn", responseModel: "claude-sonnet-4-5-20250929" },
    });
  });

  it("InvokeModelWithResponseStream with a Claude body: the app decodes every chunk; the span has the text and the stream's usage", async () => {
    const types: unknown[] = [];
    const { llm } = await llmSpans(async () => {
      const r = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId: `us.${CLAUDE}`, body: claudeBody() }));
      for await (const event of r.body!) types.push(decode(event.chunk?.bytes).type);
    });
    expect(types).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
    expect(llm[0]).toMatchObject({
      name: "bedrock.invoke_model_with_response_stream",
      status: "SUCCESS",
      model: `us.${CLAUDE}`,
      output: REPLY,
      inputTokenCount: expect.any(Number),
      outputTokenCount: 4,
      metadata: { modelFamily: "Anthropic", stopReason: "end_turn", invocationLatencyMs: 42 },
    });
  });

  it("a Converse tool-use round trip: toolsCalled with the call's id; the next call's input links the tool result to that id", async () => {
    let callId = "";
    const { llm } = await llmSpans(async () => {
      const first = await bedrock.send(new ConverseCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "Where is my order?" }] }], toolConfig: { tools } }));
      expect(first.stopReason).toBe("tool_use");
      const use = first.output!.message!.content!.find((b) => b.toolUse)!.toolUse!;
      callId = use.toolUseId!;
      const result: ContentBlock = { toolResult: { toolUseId: callId, content: [{ text: "order A-1001 shipped" }] } };
      const second = await bedrock.send(
        new ConverseCommand({
          modelId: CLAUDE,
          toolConfig: { tools },
          messages: [{ role: "user", content: [{ text: "Where is my order?" }] }, first.output!.message!, { role: "user", content: [result] }],
        }),
      );
      expect(second.output?.message?.content?.[0]).toEqual({ text: REPLY });
    });
    expect(callId).toMatch(/^tooluse_/);
    expect(llm[0]).toMatchObject({
      output: 'lookup_order({"orderId":"A-1001"})',
      toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }],
      metadata: { stopReason: "tool_use", toolCallIds: [callId] },
    });
    expect(llm[1]!.input).toEqual([
      { role: "user", content: "Where is my order?" },
      { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})', tool_calls: [{ id: callId, name: "lookup_order", arguments: { orderId: "A-1001" } }] },
      { role: "tool", content: "order A-1001 shipped", tool_call_id: callId },
    ]);
    expect(llm[1]).toMatchObject({ status: "SUCCESS", output: REPLY });
  });

  it("InvokeModel through an application inference profile ARN (no vendor in the id): the family read from the body's shape", async () => {
    const profile = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6";
    const { llm } = await llmSpans(async () => {
      await bedrock.send(new InvokeModelCommand({ modelId: profile, body: claudeBody() }));
    });
    expect(llm[0]).toMatchObject({ status: "SUCCESS", model: profile, output: REPLY, outputTokenCount: 4, metadata: { modelFamily: "Anthropic" } });
  });

  it("a streamed tool call (ConverseStream, and a Claude body's InvokeModelWithResponseStream): toolsCalled with its id", async () => {
    const { llm } = await llmSpans(async () => {
      const r = await bedrock.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "Where is my order?" }] }], toolConfig: { tools } }));
      for await (const _e of r.stream!);
      const claudeTools = [{ name: "lookup_order", input_schema: { type: "object", properties: { orderId: { type: "string" } } } }];
      const s = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body: claudeBody({ tools: claudeTools }) }));
      for await (const _e of s.body!);
    });
    for (const [span, prefix] of [
      [llm[0]!, "tooluse_"],
      [llm[1]!, "toolu_bdrk_"],
    ] as const) {
      expect(span).toMatchObject({ status: "SUCCESS", output: 'lookup_order({"orderId":"A-1001"})', toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }] });
      expect((span.metadata as { toolCallIds: string[] }).toolCallIds[0]).toMatch(new RegExp(`^${prefix}`));
    }
  });

  it("a 429 is recorded as ERRORED and rethrown as the SDK's own ThrottlingException", async () => {
    let thrown: unknown;
    const { llm } = await llmSpans(async () => {
      thrown = await bedrock.send(new ConverseCommand({ modelId: "error-429", messages: ask })).catch((e: unknown) => e);
    });
    expect(thrown).toBeInstanceOf(ThrottlingException);
    expect((thrown as ThrottlingException).$metadata.httpStatusCode).toBe(429);
    expect(llm[0]).toMatchObject({ name: "bedrock.converse", status: "ERRORED", model: "error-429" });
    expect(llm[0]!.error).toContain("Too many requests");
  });

  it("a stream the app leaves early (break), a stream that fails and an aborted stream are ERRORED, not SUCCESS with partial output", async () => {
    const { llm } = await llmSpans(async () => {
      const left = await bedrock.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: ask }));
      for await (const event of left.stream!) if (event.contentBlockDelta) break;
      const failing = await newWrapped({ "x-fake-stream-error-after": "3" }).send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body: claudeBody() }));
      const streamErr = await (async () => {
        for await (const _e of failing.body!);
      })().catch((e: unknown) => e);
      expect((streamErr as Error).name).toBe("ModelStreamErrorException");
      const controller = new AbortController();
      const aborted = await newWrapped({ "x-fake-stream-delay-ms": "20" }).send(new ConverseStreamCommand({ modelId: CLAUDE, messages: ask }), { abortSignal: controller.signal });
      // On Node the SDK ends an aborted stream quietly, as if it were done; on Bun its HTTP
      // handler rejects the read ("The pending stream has been canceled"): either is the SDK's.
      let n = 0;
      try {
        for await (const _e of aborted.stream!) if (++n === 2) controller.abort();
      } catch (e) {
        expect(String(e)).toMatch(/cancel|abort/i);
      }
      expect(n).toBeLessThan(8);
    });
    expect(llm.map((s) => s.status)).toEqual(["ERRORED", "ERRORED", "ERRORED"]);
    expect(llm[0]!.error).toContain("closed by the app");
    expect(llm[1]!.error).toContain("model stream failed");
    expect(llm[2]!.error).toMatch(/aborted|canceled/);
  });

  it("a streamed call records time to first token and tokens per second", async () => {
    const { llm } = await llmSpans(async () => {
      const r = await newWrapped({ "x-fake-stream-delay-ms": "15" }).send(new ConverseStreamCommand({ modelId: CLAUDE, messages: ask }));
      for await (const _e of r.stream!);
    });
    expectStreamTimings(llm[0]!, { minTtftMs: 15, tokens: 4 });
  });

  it("InvokeModel bodies of Amazon Nova, Amazon Titan Text and Meta Llama, streamed and not: input, output and tokens per family", async () => {
    const families = [
      { modelId: "amazon.nova-lite-v1:0", family: "Amazon Nova", body: { schemaVersion: "messages-v1", system: [{ text: "Be brief" }], messages: ask, inferenceConfig: { maxTokens: 100 } }, input: [{ role: "system", content: "Be brief" }, { role: "user", content: "When do orders ship?" }] },
      { modelId: "amazon.titan-text-express-v1", family: "Amazon Titan", body: { inputText: "When do orders ship?", textGenerationConfig: { maxTokenCount: 100 } }, input: [{ role: "user", content: "When do orders ship?" }] },
      { modelId: "meta.llama3-8b-instruct-v1:0", family: "Meta Llama", body: { prompt: "When do orders ship?", max_gen_len: 100 }, input: [{ role: "user", content: "When do orders ship?" }] },
    ];
    const { llm } = await llmSpans(async () => {
      for (const f of families) {
        await bedrock.send(new InvokeModelCommand({ modelId: f.modelId, body: JSON.stringify(f.body) }));
        const s = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId: f.modelId, body: JSON.stringify(f.body) }));
        for await (const _e of s.body!);
      }
    });
    expect(llm).toHaveLength(6);
    families.forEach((f, i) => {
      for (const span of [llm[2 * i]!, llm[2 * i + 1]!]) {
        expect(span).toMatchObject({ status: "SUCCESS", model: f.modelId, input: f.input, output: REPLY, inputTokenCount: expect.any(Number), outputTokenCount: 4, metadata: { modelFamily: f.family } });
      }
    });
  });

  it("other commands are not traced; the BedrockRuntime aggregate client and callbacks are; wrapping twice records each call once", async () => {
    const aggregate = wrapBedrock(wrapBedrock(new BedrockRuntime({ endpoint: fake.url, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 })));
    const { llm } = await llmSpans(async () => {
      await aggregate.converse({ modelId: CLAUDE, messages: ask });
      const viaCallback = await new Promise<unknown>((resolve, reject) => aggregate.send(new ConverseCommand({ modelId: CLAUDE, messages: ask }), (err, data) => (err ? reject(err) : resolve(data?.stopReason))));
      expect(viaCallback).toBe("end_turn");
      await aggregate.send(new ListAsyncInvokesCommand({})).catch(() => undefined);
    });
    aggregate.destroy();
    expect(llm.map((s) => [s.name, s.status, s.output])).toEqual([
      ["bedrock.converse", "SUCCESS", REPLY],
      ["bedrock.converse", "SUCCESS", REPLY],
    ]);
  });
});

const wrappedByHeaders = new Map<string, BedrockRuntimeClient>();
/** A wrapped client that sends `headers` (the fake's stream controls) on every request. */
function newWrapped(headers: Record<string, string>): BedrockRuntimeClient {
  const key = JSON.stringify(headers);
  let client = wrappedByHeaders.get(key);
  if (!client) {
    client = wrapBedrock(newClient(headers));
    wrappedByHeaders.set(key, client);
  }
  return client;
}
afterAll(() => {
  for (const client of wrappedByHeaders.values()) client.destroy();
});
