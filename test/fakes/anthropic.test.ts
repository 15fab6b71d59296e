import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/fakes/index.js";
import { postJson, readJson, readSse } from "./sse.js";

interface Block {
  type: string;
  id: string;
  name: string;
  text: string;
  input: unknown;
}
interface Message {
  content: Block[];
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; cache_creation: unknown };
}

// The Messages API wire shapes, checked with raw fetch (the real @anthropic-ai/sdk is not a
// dependency yet): https://docs.anthropic.com/en/api/messages, .../build-with-claude/streaming.
let fake: FakeAnthropic;
let messagesUrl: string;
beforeAll(async () => {
  fake = await startFakeAnthropic();
  messagesUrl = `${fake.url}/v1/messages`;
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const REPLY = "Orders ship in 2 days.";
const headers = { "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01" };
const lookup = { name: "lookup_order", description: "Finds an order", input_schema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } };
const ask = (body: Record<string, unknown>, extra: Record<string, string> = {}) =>
  postJson(messagesUrl, { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "When do orders ship?" }], ...body }, { ...headers, ...extra });

describe("messages, not streamed", () => {
  it("a message with a text block, end_turn and usage; the request is recorded", async () => {
    const res = await ask({ system: "Be brief" });
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_/);
    const msg = await readJson<Message>(res);
    expect(msg).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: REPLY }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: expect.any(Number), output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(fake.requests).toMatchObject([{ method: "POST", path: "/v1/messages", body: { system: "Be brief" }, headers: { "x-api-key": "sk-ant-test" } }]);
  });

  it("tool_use: input from the schema, stop_reason tool_use; a tool_result turn answers with text", async () => {
    const first = await readJson<Message>(await ask({ tools: [lookup] }));
    expect(first).toMatchObject({ stop_reason: "tool_use", content: [{ type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "lookup_order", input: { orderId: "A-1001" } }] });
    const use = first.content[0]!;
    const second = await readJson<Message>(
      await ask({
        tools: [lookup],
        messages: [
          { role: "user", content: "Where is A-1001?" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "shipped" }] },
        ],
      }),
    );
    expect(second).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: REPLY }] });
  });

  it("tool_choice: tool by name, none, and 'no tool' in the message", async () => {
    const refund = { name: "refund", input_schema: { type: "object", properties: { amount: { type: "integer" } } } };
    const named = await readJson<Message>(await ask({ tools: [lookup, refund], tool_choice: { type: "tool", name: "refund" } }));
    expect(named.content).toMatchObject([{ type: "tool_use", name: "refund", input: { amount: 1 } }]);
    const both = await readJson<Message>(await ask({ tools: [lookup, refund], messages: [{ role: "user", content: "refund, then lookup_order" }] }));
    expect(both.content.map((b) => b.name)).toEqual(["lookup_order", "refund"]);
    const single = await readJson<Message>(await ask({ tools: [lookup, refund], tool_choice: { type: "auto", disable_parallel_tool_use: true }, messages: [{ role: "user", content: "refund, then lookup_order" }] }));
    expect(single.content).toHaveLength(1);
    const none = await readJson<Message>(await ask({ tools: [lookup], tool_choice: { type: "none" } }));
    expect(none.stop_reason).toBe("end_turn");
    const noTool = await readJson<Message>(await ask({ tools: [lookup], messages: [{ role: "user", content: [{ type: "text", text: "no tool, just answer" }] }] }));
    expect(noTool.content).toEqual([{ type: "text", text: REPLY }]);
  });

  it("prompt caching: the prefix up to the last cache_control is written once, then read", async () => {
    const system = [{ type: "text", text: "A long policy document. ".repeat(40), cache_control: { type: "ephemeral" } }];
    const first = await readJson<Message>(await ask({ system }));
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(200);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: first.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 });
    const second = await readJson<Message>(await ask({ system, messages: [{ role: "user", content: "And refunds?" }] }));
    expect(second.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: first.usage.cache_creation_input_tokens });
    expect(second.usage.input_tokens).toBeLessThan(50);
  });

  it("max_tokens and stop_sequences cut the text", async () => {
    expect(await readJson<Message>(await ask({ max_tokens: 2 }))).toMatchObject({ stop_reason: "max_tokens", content: [{ text: "Orders ship " }], usage: { output_tokens: 2 } });
    expect(await readJson<Message>(await ask({ stop_sequences: ["2 days"] }))).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: "2 days", content: [{ text: "Orders ship in " }] });
  });

  it("structured output: output_config.format json_schema gives matching JSON text", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" }, days: { type: "integer" } }, required: ["answer", "days"], additionalProperties: false };
    const msg = await readJson<Message>(await ask({ output_config: { format: { type: "json_schema", schema } } }));
    expect(JSON.parse(msg.content[0]!.text)).toEqual({ answer: REPLY, days: 1 });
  });

  it("count_tokens gives the same input estimate", async () => {
    const body = { model: "claude-sonnet-4-5", system: "Be brief", messages: [{ role: "user", content: "When do orders ship?" }] };
    const counted = await readJson<{ input_tokens: number }>(await postJson(`${fake.url}/v1/messages/count_tokens`, body, headers));
    const msg = await readJson<Message>(await ask({ system: "Be brief" }));
    expect(counted).toEqual({ input_tokens: msg.usage.input_tokens });
  });
});

describe("scripted replies", () => {
  it("script(): the next requests get the scripted tool call (exact input) and text, in order, then the usual answer", async () => {
    fake.script({ toolCalls: [{ name: "Agent", input: { subagent_type: "shipper", prompt: "Where is A-1001?" } }] }, { text: "Scripted." });
    const first = await readJson<Message>(await ask({ tools: [lookup] }));
    expect(first).toMatchObject({ stop_reason: "tool_use", content: [{ type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "Agent", input: { subagent_type: "shipper", prompt: "Where is A-1001?" } }] });
    expect(await readJson<Message>(await ask({}))).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "Scripted." }] });
    expect(await readJson<Message>(await ask({}))).toMatchObject({ content: [{ type: "text", text: REPLY }] });
  });

  it("script(fn): a function's reply is used for the first request it answers; undefined leaves it queued", async () => {
    fake.script((req) => (JSON.stringify(req.body.messages).includes("second") ? { text: "For the second." } : undefined));
    expect(await readJson<Message>(await ask({}))).toMatchObject({ content: [{ type: "text", text: REPLY }] });
    const res = await ask({ messages: [{ role: "user", content: "the second question" }] });
    expect(await readJson<Message>(res)).toMatchObject({ content: [{ type: "text", text: "For the second." }] });
    expect(() => fake.script({} as never)).toThrow(TypeError);
  });

  it("HEAD / (Claude Code's connectivity check) is a 200", async () => {
    const res = await fetch(`${fake.url}/`, { method: "HEAD" });
    expect(res.status).toBe(200);
  });
});

describe("messages, streamed", () => {
  it("message_start, content blocks with text_delta, message_delta with usage, message_stop", async () => {
    const res = await ask({ stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const e of events) expect((e.data as { type: string }).type).toBe(e.event);
    expect(events[0]!.data).toMatchObject({ message: { role: "assistant", content: [], stop_reason: null, usage: { output_tokens: 1 } } });
    expect(events[1]!.data).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    const text = events.filter((e) => e.event === "content_block_delta").map((e) => (e.data as { delta: { type: string; text: string } }).delta);
    expect(text.every((d) => d.type === "text_delta")).toBe(true);
    expect(text.map((d) => d.text).join("")).toBe(REPLY);
    expect(events[8]!.data).toMatchObject({ delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
  });

  it("tool_use blocks stream their input as input_json_delta pieces", async () => {
    const events = await readSse(await ask({ stream: true, tools: [lookup] }));
    expect(events[1]!.data).toMatchObject({ index: 0, content_block: { type: "tool_use", name: "lookup_order", input: {} } });
    const json = events
      .filter((e) => e.event === "content_block_delta")
      .map((e) => (e.data as { delta: { type: string; partial_json: string } }).delta)
      .map((d) => {
        expect(d.type).toBe("input_json_delta");
        return d.partial_json;
      })
      .join("");
    expect(JSON.parse(json)).toEqual({ orderId: "A-1001" });
    expect(events.find((e) => e.event === "message_delta")!.data).toMatchObject({ delta: { stop_reason: "tool_use" } });
  });

  it("cache tokens in message_start and message_delta", async () => {
    const system = [{ type: "text", text: "Streamed policy. ".repeat(40), cache_control: { type: "ephemeral", ttl: "1h" } }];
    await ask({ system });
    const events = await readSse(await ask({ system, stream: true }));
    const start = (events[0]!.data as { message: { usage: Record<string, number> } }).message.usage;
    expect(start.cache_read_input_tokens).toBeGreaterThan(0);
    expect(events.find((e) => e.event === "message_delta")!.data).toMatchObject({ usage: { cache_read_input_tokens: start.cache_read_input_tokens } });
  });

  it("an error event part-way when asked", async () => {
    const events = await readSse(await ask({ stream: true }, { "x-fake-stream-error-after": "3" }));
    expect(events.map((e) => e.event)).toEqual(["message_start", "content_block_start", "ping", "error"]);
    expect(events[3]!.data).toMatchObject({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
  });
});

describe("errors", () => {
  it("429 by model name: rate_limit_error with retry-after, request-id and rate-limit headers", async () => {
    const res = await ask({ model: "error-429" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("retry-after-ms")).toBe("10");
    expect(res.headers.get("anthropic-ratelimit-requests-remaining")).toBe("0");
    const body = await res.json();
    expect(body).toEqual({ type: "error", error: { type: "rate_limit_error", message: expect.any(String) }, request_id: res.headers.get("request-id") });
  });

  it("failNext and the header: 529 overloaded_error, 500 api_error; then normal again", async () => {
    fake.failNext(529, { times: 1, message: "busy" });
    const overloaded = await ask({});
    expect(overloaded.status).toBe(529);
    expect(await overloaded.json()).toMatchObject({ error: { type: "overloaded_error", message: "busy" } });
    const server = await ask({}, { "x-fake-error": "500" });
    expect(await server.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect((await ask({})).status).toBe(200);
    expect(fake.requests).toHaveLength(3);
  });

  it("400 invalid_request_error for a missing max_tokens, bad JSON and unknown routes (404)", async () => {
    const missing = await postJson(messagesUrl, { model: "claude-sonnet-4-5", messages: [] }, headers);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { type: "invalid_request_error", message: "max_tokens: Field required" } });
    const bad = await fetch(messagesUrl, { method: "POST", headers, body: "{" });
    expect(await bad.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    const unknown = await postJson(`${fake.url}/v1/complete`, {}, headers);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
  });
});
