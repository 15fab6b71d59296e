import OpenAI from "openai";
import { zodFunction, zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";

// The real openai package and its own helpers, unmodified, against the fake OpenAI server.
let fake: FakeOpenAI;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  client = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const REPLY = "Orders ship in 2 days.";
const lookup = {
  type: "function" as const,
  function: { name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } },
};

describe("chat completions", () => {
  it("create: a chat.completion with usage", async () => {
    const r = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When do orders ship?" }] });
    expect(r).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini-2024-07-18",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: REPLY, refusal: null } }],
      usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
    });
    expect(fake.requests).toMatchObject([{ method: "POST", path: "/chat/completions", body: { model: "gpt-4o-mini" } }]);
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-test");
  });

  it("create with stream: role chunk, content deltas, finish_reason last; no usage chunk without include_usage", async () => {
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "When?" }] });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]!.choices[0]!.delta).toMatchObject({ role: "assistant", content: "" });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(REPLY);
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: "stop" });
    expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    expect(chunks.every((c) => !("usage" in c))).toBe(true);
  });

  it("create with stream and include_usage: usage null on every chunk, then a usage chunk with no choices", async () => {
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "When?" }] });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
  });

  it("stream() helper: content events and finalChatCompletion()", async () => {
    const runner = client.chat.completions.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When?" }], stream_options: { include_usage: true } });
    const deltas: string[] = [];
    runner.on("content", (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(deltas.join("")).toBe(REPLY);
    expect(final.choices[0]).toMatchObject({ finish_reason: "stop", message: { role: "assistant", content: REPLY } });
    expect(final.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4 });
  });

  it("streams tool calls: index, id, name, then argument pieces; finish_reason tool_calls", async () => {
    const runner = client.chat.completions.stream({ model: "gpt-4o-mini", tools: [lookup], messages: [{ role: "user", content: "Where is A-1001?" }] });
    const chunks = [];
    for await (const c of runner) chunks.push(c);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: "function", function: { name: "lookup_order", arguments: "" } });
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.slice(1).every((c) => c.id === undefined && c.function?.name === undefined)).toBe(true);
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toEqual([{ id: calls[0]!.id, type: "function", function: { name: "lookup_order", arguments: '{"orderId":"A-1001"}' } }]);
  });

  it("tool calls: tool_choice names the tool; the user message names several (parallel); 'no tool' and tool_choice none answer", async () => {
    const other = { type: "function" as const, function: { name: "refund", parameters: { type: "object", properties: { amount: { type: "number", minimum: 5 } }, required: ["amount"] } } };
    const named = await client.chat.completions.create({ model: "gpt-4o-mini", tools: [lookup, other], tool_choice: { type: "function", function: { name: "refund" } }, messages: [{ role: "user", content: "hi" }] });
    expect(named.choices[0]!.message.tool_calls).toMatchObject([{ function: { name: "refund", arguments: '{"amount":5}' } }]);
    const both = await client.chat.completions.create({ model: "gpt-4o-mini", tools: [lookup, other], messages: [{ role: "user", content: "use refund and lookup_order" }] });
    expect(both.choices[0]!.message.tool_calls!.map((c) => (c.type === "function" ? c.function.name : ""))).toEqual(["lookup_order", "refund"]);
    const one = await client.chat.completions.create({ model: "gpt-4o-mini", tools: [lookup, other], parallel_tool_calls: false, messages: [{ role: "user", content: "use refund and lookup_order" }] });
    expect(one.choices[0]!.message.tool_calls).toHaveLength(1);
    const noTool = await client.chat.completions.create({ model: "gpt-4o-mini", tools: [lookup], messages: [{ role: "user", content: "no tool please" }] });
    expect(noTool.choices[0]!.message.content).toBe(REPLY);
    const none = await client.chat.completions.create({ model: "gpt-4o-mini", tools: [lookup], tool_choice: "none", messages: [{ role: "user", content: "hi" }] });
    expect(none.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: REPLY } });
  });

  it("a follow-up turn with the tool result answers normally", async () => {
    const first = await client.chat.completions.create({ model: "gpt-4o-mini", tools: [lookup], messages: [{ role: "user", content: "Where is A-1001?" }] });
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(first.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 7 });
    const call = first.choices[0]!.message.tool_calls![0]!;
    const second = await client.chat.completions.create({
      model: "gpt-4o-mini",
      tools: [lookup],
      messages: [{ role: "user", content: "Where is A-1001?" }, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "shipped" }],
    });
    expect(second.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: REPLY } });
  });

  it("parse() with a zod response format gives a parsed object", async () => {
    const Answer = z.object({ answer: z.string(), days: z.number().int().min(1), when: z.iso.datetime(), contact: z.email(), tags: z.array(z.enum(["fast", "cheap"])), note: z.string().nullable() });
    const r = await client.chat.completions.parse({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When?" }], response_format: zodResponseFormat(Answer, "answer") });
    const parsed = r.choices[0]!.message.parsed!;
    expect(Answer.parse(parsed)).toEqual(parsed);
    expect(parsed.answer).toBe(REPLY);
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual(parsed);
  });

  it("json_object mode gives JSON content", async () => {
    const r = await client.chat.completions.create({ model: "gpt-4o-mini", response_format: { type: "json_object" }, messages: [{ role: "user", content: "json" }] });
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ answer: REPLY });
  });

  it("runTools() runs one tool round-trip and ends with the answer", async () => {
    const seen: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Where is order A-1001?" }],
      tools: [
        zodFunction({
          name: "lookup_order",
          parameters: z.object({ orderId: z.string() }),
          function: async (args: { orderId: string }) => {
            seen.push(args);
            return `order ${args.orderId} shipped`;
          },
        }),
      ],
    });
    expect(await runner.finalContent()).toBe(REPLY);
    expect(seen).toEqual([{ orderId: "A-1001" }]);
    const messages = runner.messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(fake.requests).toHaveLength(2);
  });

  it("max_completion_tokens cuts the text with finish_reason length; stop cuts at the stop sequence", async () => {
    const cut = await client.chat.completions.create({ model: "gpt-4o-mini", max_completion_tokens: 2, messages: [{ role: "user", content: "x" }] });
    expect(cut.choices[0]).toMatchObject({ finish_reason: "length", message: { content: "Orders ship " } });
    expect(cut.usage!.completion_tokens).toBe(2);
    const stopped = await client.chat.completions.create({ model: "gpt-4o-mini", stop: [" in"], messages: [{ role: "user", content: "x" }] });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "Orders ship" } });
  });
});

describe("responses", () => {
  it("create: a response with a message output and usage", async () => {
    const r = await client.responses.create({ model: "gpt-4.1-mini", instructions: "Be brief", input: "When do orders ship?" });
    expect(r.output_text).toBe(REPLY);
    expect(r).toMatchObject({
      object: "response",
      status: "completed",
      model: "gpt-4.1-mini",
      instructions: "Be brief",
      output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: REPLY, annotations: [] }] }],
      usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
    });
  });

  it("create with stream: the full documented event sequence", async () => {
    const stream = await client.responses.create({ model: "gpt-4.1-mini", input: "When?", stream: true });
    const events = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1)!;
    expect(completed.type === "response.completed" && completed.response.usage).toMatchObject({ input_tokens: 9, output_tokens: 4 });
  });

  it("stream() helper: text deltas and finalResponse()", async () => {
    const stream = client.responses.stream({ model: "gpt-4.1-mini", input: "When?" });
    let text = "";
    stream.on("response.output_text.delta", (e) => {
      text += e.delta;
    });
    const final = await stream.finalResponse();
    expect(text).toBe(REPLY);
    expect(final.output_text).toBe(REPLY);
    expect(final.status).toBe("completed");
  });

  it("function calls, streamed and not, then the answer after function_call_output", async () => {
    const tools = [{ type: "function" as const, name: "lookup_order", strict: true, parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"], additionalProperties: false } }];
    const r = await client.responses.create({ model: "gpt-4.1-mini", input: "Where is A-1001?", tools });
    expect(r.output).toMatchObject([{ type: "function_call", name: "lookup_order", arguments: '{"orderId":"A-1001"}', call_id: expect.stringMatching(/^call_/), status: "completed" }]);
    const stream = client.responses.stream({ model: "gpt-4.1-mini", input: "Where is A-1001?", tools });
    const argDeltas: string[] = [];
    stream.on("response.function_call_arguments.delta", (e) => argDeltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(argDeltas.join("")).toBe('{"orderId":"A-1001"}');
    const call = final.output[0]!;
    expect(call).toMatchObject({ type: "function_call", name: "lookup_order", arguments: '{"orderId":"A-1001"}' });
    const answer = await client.responses.create({
      model: "gpt-4.1-mini",
      tools,
      input: [{ role: "user", content: "Where is A-1001?" }, call.type === "function_call" ? call : { role: "user", content: "" }, { type: "function_call_output", call_id: call.type === "function_call" ? call.call_id : "", output: "shipped" }],
    });
    expect(answer.output_text).toBe(REPLY);
  });

  it("parse() with a zod text format, plain and streamed", async () => {
    const Answer = z.object({ answer: z.string(), eta: z.object({ days: z.number() }) });
    const r = await client.responses.parse({ model: "gpt-4.1-mini", input: "When?", text: { format: zodTextFormat(Answer, "answer") } });
    expect(r.output_parsed).toEqual({ answer: REPLY, eta: { days: 1 } });
    const final = await client.responses.stream({ model: "gpt-4.1-mini", input: "When?", text: { format: zodTextFormat(Answer, "answer") } }).finalResponse();
    expect(final.output_parsed).toEqual({ answer: REPLY, eta: { days: 1 } });
  });

  it("max_output_tokens gives an incomplete response", async () => {
    const r = await client.responses.create({ model: "gpt-4.1-mini", input: "x", max_output_tokens: 1 });
    expect(r).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(r.output_text).toBe("Orders ");
  });
});

describe("embeddings", () => {
  it("float arrays, one per input, deterministic and unit length, with usage", async () => {
    const r = await client.embeddings.create({ model: "text-embedding-3-small", input: ["orders", "refunds"], encoding_format: "float", dimensions: 8 });
    expect(r).toMatchObject({ object: "list", model: "text-embedding-3-small", usage: { prompt_tokens: 4, total_tokens: 4 } });
    expect(r.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ["embedding", 0, 8],
      ["embedding", 1, 8],
    ]);
    expect(Math.hypot(...r.data[0]!.embedding)).toBeCloseTo(1, 5);
    const again = await client.embeddings.create({ model: "text-embedding-3-small", input: "orders", encoding_format: "float", dimensions: 8 });
    expect(again.data[0]!.embedding).toEqual(r.data[0]!.embedding);
    const full = await client.embeddings.create({ model: "text-embedding-3-small", input: "orders", encoding_format: "float" });
    expect(full.data[0]!.embedding).toHaveLength(1536);
  });

  it("base64 when asked (raw), and the SDK's default base64 request decodes to the same floats", async () => {
    const floats = await client.embeddings.create({ model: "text-embedding-3-small", input: "orders", encoding_format: "float", dimensions: 4 });
    const raw = await client.embeddings.create({ model: "text-embedding-3-small", input: "orders", encoding_format: "base64", dimensions: 4 });
    const b64 = raw.data[0]!.embedding as unknown as string;
    expect(typeof b64).toBe("string");
    const buf = Buffer.from(b64, "base64");
    expect(Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4))).toEqual(floats.data[0]!.embedding);
    fake.requests.length = 0;
    const byDefault = await client.embeddings.create({ model: "text-embedding-3-small", input: "orders", dimensions: 4 });
    expect(fake.requests[0]!.body.encoding_format).toBe("base64");
    expect(byDefault.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
  });
});

describe("errors on demand", () => {
  it("a 429 the SDK retries (after retry-after-ms), then a success", async () => {
    const retrying = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 2 });
    fake.failNext(429, { times: 2 });
    const started = Date.now();
    const r = await retrying.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] });
    expect(Date.now() - started).toBeLessThan(400);
    expect(r.choices[0]!.message.content).toBe(REPLY);
    expect(fake.requests.map((q) => q.headers["x-stainless-retry-count"])).toEqual(["0", "1", "2"]);
  });

  it("a 429 by model name: RateLimitError with OpenAI's body and Retry-After once retries are exhausted", async () => {
    const retrying = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 1 });
    const err = await retrying.chat.completions.create({ model: "error-429", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.error).toMatchObject({ type: "requests", code: "rate_limit_exceeded", message: expect.stringContaining("Rate limit") });
    expect(e.headers.get("retry-after")).toBe("1");
    expect(e.requestID).toMatch(/^req_/);
    expect(fake.requests).toHaveLength(2);
  });

  it("a 400 surfaces as BadRequestError (header, model name and the legacy 'boom' model)", async () => {
    for (const [model, headers] of [
      ["gpt-4o-mini", { "x-fake-error": "400" }],
      ["error-400", {}],
      ["boom", {}],
    ] as const) {
      const err = await client.chat.completions.create({ model, messages: [{ role: "user", content: "x" }] }, { headers }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ type: "invalid_request_error", param: null });
    }
  });

  it("a 500 surfaces as InternalServerError; a 404 route in OpenAI's shape", async () => {
    const err = await client.responses.create({ model: "error-500", input: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.InternalServerError>).error).toMatchObject({ type: "server_error" });
    const res = await fetch(`${fake.url}/nope`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { message: "Invalid URL (POST /v1/nope)", type: "invalid_request_error", param: null, code: null } });
  });

  it("an in-stream error after n events is thrown by the SDK as an APIError", async () => {
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "x" }] }, { headers: { "x-fake-stream-error-after": "2" } });
    let text = "";
    const err = await (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(text).toBe("Orders ");
  });

  it("a paced stream can be aborted part-way (the SDK's iteration then ends quietly)", async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "x" }] }, { headers: { "x-fake-stream-delay-ms": "30" }, signal: controller.signal });
    let text = "";
    const started = Date.now();
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      if (text.length > 0) controller.abort();
    }
    expect(text).toBe("Orders ");
    expect(Date.now() - started).toBeLessThan(150);
  });

  it("bad JSON is a 400 in OpenAI's shape", async () => {
    const res = await fetch(`${fake.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", message: expect.stringContaining("parse the JSON body") } });
  });
});
