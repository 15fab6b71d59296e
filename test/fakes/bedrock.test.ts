import { BedrockRuntimeClient, ConverseStreamCommand, ModelStreamErrorException, ServiceUnavailableException, ThrottlingException, ValidationException } from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeMessages, type EventStreamMessage } from "../../src/fakes/eventstream.js";
import { type FakeBedrock, startFakeBedrock } from "../../src/fakes/index.js";
import { postJson, readJson } from "./sse.js";

// The Bedrock Runtime wire shapes, checked with raw fetch (HTTP/1.1) against the API reference
// (Converse, ConverseStream, InvokeModel, InvokeModelWithResponseStream) and the model families'
// body formats; then the real @aws-sdk/client-bedrock-runtime (HTTP/2) against the same fake.
let fake: FakeBedrock;
beforeAll(async () => {
  fake = await startFakeBedrock();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const REPLY = "Orders ship in 2 days.";
const CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const at = (modelId: string, action: string) => `${fake.url}/model/${encodeURIComponent(modelId)}/${action}`;
const ask = [{ role: "user", content: [{ text: "When do orders ship?" }] }];
const toolConfig = { tools: [{ toolSpec: { name: "lookup_order", inputSchema: { json: { type: "object", properties: { orderId: { type: "string" } } } } } }] };
const claude = (extra: Record<string, unknown> = {}) => ({ anthropic_version: "bedrock-2023-05-31", max_tokens: 100, messages: [{ role: "user", content: "When do orders ship?" }], ...extra });

/** The messages of an event stream response, their JSON payloads parsed. */
async function events(res: Response): Promise<{ headers: Record<string, string>; json: Record<string, unknown> }[]> {
  const messages: EventStreamMessage[] = decodeMessages(new Uint8Array(await res.arrayBuffer()));
  return messages.map((m) => ({ headers: m.headers, json: JSON.parse(Buffer.from(m.payload).toString("utf8")) as Record<string, unknown> }));
}

const chunkJson = (e: { json: Record<string, unknown> }) => JSON.parse(Buffer.from(String(e.json.bytes), "base64").toString("utf8")) as Record<string, unknown>;

describe("Converse", () => {
  it("a reply of output.message, stopReason end_turn, usage with total, metrics; the request recorded with its encoded path", async () => {
    const res = await postJson(at(CLAUDE, "converse"), { messages: ask, system: [{ text: "Be brief" }] });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-amzn-requestid")).toMatch(/^[0-9a-f-]{36}$/);
    const body = await readJson<{ usage: { inputTokens: number; outputTokens: number; totalTokens: number } }>(res);
    expect(body).toEqual({ metrics: { latencyMs: 42 }, output: { message: { content: [{ text: REPLY }], role: "assistant" } }, stopReason: "end_turn", usage: { inputTokens: expect.any(Number), outputTokens: 4, totalTokens: expect.any(Number) } });
    expect(body.usage.totalTokens).toBe(body.usage.inputTokens + 4);
    expect(fake.requests).toMatchObject([{ method: "POST", path: `/model/${encodeURIComponent(CLAUDE)}/converse`, body: { system: [{ text: "Be brief" }] } }]);
  });

  it("tool use: a toolUse block with a tooluse_ id and the schema's sample input; a toolResult answering it gets text", async () => {
    const first = await readJson<{ stopReason: string; output: { message: { content: { toolUse: { toolUseId: string } }[] } } }>(await postJson(at(CLAUDE, "converse"), { messages: ask, toolConfig }));
    expect(first).toMatchObject({ stopReason: "tool_use", output: { message: { content: [{ toolUse: { toolUseId: expect.stringMatching(/^tooluse_/), name: "lookup_order", input: { orderId: "A-1001" } } }] } } });
    const id = first.output.message.content[0]!.toolUse.toolUseId;
    const second = await postJson(at(CLAUDE, "converse"), { toolConfig, messages: [...ask, first.output.message, { role: "user", content: [{ toolResult: { toolUseId: id, content: [{ text: "shipped" }] } }] }] });
    expect(await readJson(second)).toMatchObject({ stopReason: "end_turn", output: { message: { content: [{ text: REPLY }] } } });
  });

  it("refuses what the service refuses with a ValidationException: tool blocks without toolConfig, a toolResult no toolUse asked for, a first turn not from the user", async () => {
    const result = { role: "user", content: [{ toolResult: { toolUseId: "tooluse_nope", content: [{ text: "x" }] } }] };
    const cases = [
      [{ messages: [...ask, { role: "assistant", content: [{ text: "ok" }] }, result] }, "toolConfig field must be defined"],
      [{ toolConfig, messages: [...ask, { role: "assistant", content: [{ text: "ok" }] }, result] }, "unexpected `tool_use_id`"],
      [{ messages: [{ role: "assistant", content: [{ text: "hi" }] }] }, "must start with a user message"],
    ] as const;
    for (const [body, message] of cases) {
      const res = await postJson(at(CLAUDE, "converse"), body);
      expect(res.status).toBe(400);
      expect(res.headers.get("x-amzn-errortype")).toMatch(/^ValidationException:/);
      expect((await readJson<{ message: string }>(res)).message).toContain(message);
    }
  });
});

describe("ConverseStream", () => {
  it("an application/vnd.amazon.eventstream body whose messages have valid checksums, :event-type headers in the documented order and the padding field p", async () => {
    const res = await postJson(at(CLAUDE, "converse-stream"), { messages: ask });
    expect(res.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    const all = await events(res);
    expect(all.map((e) => e.headers[":event-type"])).toEqual(["messageStart", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"]);
    for (const e of all) expect(e.headers).toMatchObject({ ":message-type": "event", ":content-type": "application/json" });
    for (const e of all) expect(e.json.p).toEqual(expect.any(String));
    expect(all.map((e) => (e.json.delta as { text?: string } | undefined)?.text ?? "").join("")).toBe(REPLY);
    expect(all[6]!.json).toMatchObject({ stopReason: "end_turn" });
    expect(all[7]!.json).toMatchObject({ usage: { inputTokens: expect.any(Number), outputTokens: 4 }, metrics: { latencyMs: 42 } });
  });

  it("tool use streams contentBlockStart with toolUseId and name, then toolUse input deltas that join into the input's JSON", async () => {
    const all = await events(await postJson(at(CLAUDE, "converse-stream"), { messages: ask, toolConfig }));
    expect(all[1]).toMatchObject({ headers: { ":event-type": "contentBlockStart" }, json: { contentBlockIndex: 0, start: { toolUse: { name: "lookup_order", toolUseId: expect.stringMatching(/^tooluse_/) } } } });
    const input = all.filter((e) => e.headers[":event-type"] === "contentBlockDelta").map((e) => (e.json.delta as { toolUse: { input: string } }).toolUse.input);
    expect(JSON.parse(input.join(""))).toEqual({ orderId: "A-1001" });
    expect(all.find((e) => e.headers[":event-type"] === "messageStop")!.json).toMatchObject({ stopReason: "tool_use" });
  });

  it("x-fake-stream-error-after sends a modelStreamErrorException message after n events", async () => {
    const all = await events(await postJson(at(CLAUDE, "converse-stream"), { messages: ask }, { "x-fake-stream-error-after": "2" }));
    expect(all).toHaveLength(3);
    expect(all[2]!.headers).toEqual({ ":exception-type": "modelStreamErrorException", ":content-type": "application/json", ":message-type": "exception" });
    expect(all[2]!.json).toMatchObject({ message: expect.any(String), originalStatusCode: 529 });
  });
});

describe("InvokeModel per model family", () => {
  it("Claude: an Anthropic message whose model is Claude's own name, usage with cache tokens; the token-count headers", async () => {
    const res = await postJson(at(`us.${CLAUDE}`, "invoke"), claude({ system: "Be brief" }));
    expect(res.headers.get("x-amzn-bedrock-input-token-count")).toMatch(/^\d+$/);
    expect(res.headers.get("x-amzn-bedrock-output-token-count")).toBe("4");
    expect(await readJson(res)).toMatchObject({
      id: expect.stringMatching(/^msg_bdrk_/),
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [{ type: "text", text: REPLY }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: Number(res.headers.get("x-amzn-bedrock-input-token-count")), output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it("Claude: a body without anthropic_version or with a model key is a ValidationException; tools get a toolu_bdrk_ tool_use", async () => {
    for (const body of [{ max_tokens: 10, messages: [] }, claude({ model: "claude" })]) {
      const res = await postJson(at(CLAUDE, "invoke"), body);
      expect(res.status).toBe(400);
      expect((await readJson<{ message: string }>(res)).message).toMatch(/^Malformed input request: #: (required|extraneous) key/);
    }
    const tools = [{ name: "lookup_order", input_schema: { type: "object", properties: { orderId: { type: "string" } } } }];
    expect(await readJson(await postJson(at(CLAUDE, "invoke"), claude({ tools })))).toMatchObject({ stop_reason: "tool_use", content: [{ type: "tool_use", id: expect.stringMatching(/^toolu_bdrk_/), input: { orderId: "A-1001" } }] });
  });

  it("Claude streamed: chunk events whose base64 bytes are Anthropic stream events, the last with amazon-bedrock-invocationMetrics", async () => {
    const res = await postJson(at(CLAUDE, "invoke-with-response-stream"), claude());
    expect(res.headers.get("x-amzn-bedrock-content-type")).toBe("application/json");
    const all = await events(res);
    expect(new Set(all.map((e) => e.headers[":event-type"]))).toEqual(new Set(["chunk"]));
    const chunks = all.map(chunkJson);
    expect(chunks.map((c) => c.type)).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
    expect(chunks.at(-1)).toMatchObject({ "amazon-bedrock-invocationMetrics": { inputTokenCount: expect.any(Number), outputTokenCount: 4, invocationLatency: expect.any(Number), firstByteLatency: expect.any(Number) } });
    expect(chunks[7]).toMatchObject({ delta: { stop_reason: "end_turn" }, usage: { output_tokens: 4 } });
  });

  it("Amazon Nova, Amazon Titan Text and Meta Llama: each family's reply body and stream chunks", async () => {
    const nova = await readJson(await postJson(at("amazon.nova-lite-v1:0", "invoke"), { schemaVersion: "messages-v1", messages: ask, inferenceConfig: { maxTokens: 10 } }));
    expect(nova).toMatchObject({ output: { message: { content: [{ text: REPLY }], role: "assistant" } }, stopReason: "end_turn", usage: { outputTokens: 4, cacheReadInputTokenCount: 0 } });
    const titan = await readJson(await postJson(at("amazon.titan-text-express-v1", "invoke"), { inputText: "When?", textGenerationConfig: { maxTokenCount: 2 } }));
    expect(titan).toEqual({ inputTextTokenCount: expect.any(Number), results: [{ tokenCount: 2, outputText: "Orders ship ", completionReason: "LENGTH" }] });
    const llama = await readJson(await postJson(at("meta.llama3-8b-instruct-v1:0", "invoke"), { prompt: "When?", max_gen_len: 100 }));
    expect(llama).toEqual({ generation: REPLY, prompt_token_count: expect.any(Number), generation_token_count: 4, stop_reason: "stop" });
    const novaChunks = (await events(await postJson(at("amazon.nova-lite-v1:0", "invoke-with-response-stream"), { messages: ask }))).map(chunkJson);
    expect(novaChunks.map((c) => Object.keys(c).filter((k) => !k.startsWith("amazon-bedrock"))[0])).toEqual(["messageStart", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"]);
    const llamaChunks = (await events(await postJson(at("meta.llama3-8b-instruct-v1:0", "invoke-with-response-stream"), { prompt: "When?" }))).map(chunkJson);
    expect(llamaChunks.map((c) => c.generation).join("")).toBe(REPLY);
    expect(llamaChunks.at(-1)).toMatchObject({ stop_reason: "stop", generation_token_count: 4 });
  });

  it("a model id no family matches is a ValidationException", async () => {
    const res = await postJson(at("cohere.command-r-v1:0", "invoke"), { message: "hi" });
    expect(res.status).toBe(400);
    expect((await readJson<{ message: string }>(res)).message).toBe("The provided model identifier is invalid.");
  });
});

describe("errors", () => {
  it("failNext, x-fake-error and an error-<status> model id answer with the status, x-amzn-errortype and {message}; other paths are 404", async () => {
    fake.failNext(429);
    const throttled = await postJson(at(CLAUDE, "converse"), { messages: ask });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("x-amzn-errortype")).toBe("ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/");
    expect(await readJson(throttled)).toEqual({ message: "Too many requests, please wait before trying again." });
    const header = await postJson(at(CLAUDE, "converse"), { messages: ask }, { "x-fake-error": "408" });
    expect([header.status, header.headers.get("x-amzn-errortype")?.split(":")[0]]).toEqual([408, "ModelTimeoutException"]);
    const byModel = await postJson(at("error-503", "invoke"), {});
    expect([byModel.status, byModel.headers.get("x-amzn-errortype")?.split(":")[0]]).toEqual([503, "ServiceUnavailableException"]);
    expect((await postJson(`${fake.url}/model/x/other`, {})).status).toBe(404);
  });
});

describe("the real BedrockRuntimeClient (HTTP/2, SigV4-signed) against the fake", () => {
  const client = () => new BedrockRuntimeClient({ endpoint: fake.url, region: "eu-west-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 });

  it("throws its typed exceptions: ThrottlingException, ServiceUnavailableException, ValidationException, and ModelStreamErrorException mid-stream", async () => {
    const c = client();
    try {
      await expect(c.send(new ConverseStreamCommand({ modelId: "error-429", messages: [{ role: "user", content: [{ text: "x" }] }] }))).rejects.toBeInstanceOf(ThrottlingException);
      await expect(c.send(new ConverseStreamCommand({ modelId: "error-503", messages: [{ role: "user", content: [{ text: "x" }] }] }))).rejects.toBeInstanceOf(ServiceUnavailableException);
      await expect(c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "assistant", content: [{ text: "x" }] }] }))).rejects.toBeInstanceOf(ValidationException);
      fake.failNext(503);
      await expect(c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "x" }] }] }))).rejects.toBeInstanceOf(ServiceUnavailableException);
      c.middlewareStack.add(
        (next) => (args) => {
          (args.request as { headers: Record<string, string> }).headers["x-fake-stream-error-after"] = "2";
          return next(args);
        },
        { step: "build" },
      );
      const r = await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "x" }] }] }));
      const seen: string[] = [];
      const err = await (async () => {
        for await (const e of r.stream!) seen.push(Object.keys(e)[0]!);
      })().catch((e: unknown) => e);
      expect(seen).toEqual(["messageStart", "contentBlockDelta"]);
      expect(err).toBeInstanceOf(ModelStreamErrorException);
      expect(fake.requests.at(-1)!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDFAKE\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
    } finally {
      c.destroy();
    }
  });
});
