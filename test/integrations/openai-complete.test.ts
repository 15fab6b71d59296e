import OpenAI from "openai";
import { zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { expectStreamTimings, timingsOf } from "../helpers/stream-timings.js";
import { packageRoot } from "../helpers/child.js";
import { helperMethodTests, zeroCodeHelperTests } from "./openai-helpers.js";

// wrapOpenAI "complete and invisible" (integrations issue): every method that reaches the model
// is one span, and the client behaves as the raw one, call by call. Real openai package, fake server.
let dev: DevServer;
let fake: FakeOpenAI;
let raw: OpenAI;
let client: OpenAI;
let logger: { lines: string[] };
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  logger = configureForTest(dev.url, dev.projectKey);
  raw = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
  client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

async function llmSpans(fn: () => Promise<unknown>): Promise<StoredSpan[]> {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  return dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm").sort((a, b) => a.startTime.localeCompare(b.startTime));
}

const lookup = { type: "function" as const, function: { name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } } };

describe("every method that reaches the model is one span", () => {
  it("chat.completions.parse, .stream and .runTools", async () => {
    const spans = await llmSpans(async () => {
      const parsed = await client.chat.completions.parse({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When?" }], response_format: zodResponseFormat(z.object({ answer: z.string() }), "a") });
      expect(parsed.choices[0]!.message.parsed).toBeDefined();
      const stream = client.chat.completions.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "stream it" }] });
      expect((await stream.finalChatCompletion()).choices[0]!.message.content).toBe("Orders ship in 2 days.");
      const runner = client.chat.completions.runTools({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "Where is A-1001? use lookup_order" }],
        tools: [{ type: "function", function: { name: "lookup_order", description: "Finds an order", parameters: lookup.function.parameters, function: (a: { orderId: string }) => `order ${a.orderId} shipped`, parse: JSON.parse } }],
      });
      expect(await runner.finalContent()).toBe("Orders ship in 2 days.");
    });
    expect(spans.map((s) => s.name)).toEqual(Array(4).fill("openai.chat.completions"));
    expect(spans[1]).toMatchObject({ input: [{ role: "user", content: "stream it" }], output: "Orders ship in 2 days." });
    expect(spans[2]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
    const followUp = spans[3]!.input as { role: string; content: string }[];
    expect(followUp.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(followUp[1]!.content).toContain("lookup_order");
    expect(followUp[2]!.content).toBe("order A-1001 shipped");
  });

  it("responses.parse, .stream, a function call reply, and embeddings.create", async () => {
    const spans = await llmSpans(async () => {
      await client.responses.parse({ model: "gpt-4o-mini", input: "When?", text: { format: zodTextFormat(z.object({ answer: z.string() }), "a") } });
      const stream = client.responses.stream({ model: "gpt-4o-mini", input: "stream it" });
      expect((await stream.finalResponse()).output_text).toBe("Orders ship in 2 days.");
      await client.responses.create({ model: "gpt-4o-mini", input: "use lookup_order", tools: [{ type: "function", name: "lookup_order", parameters: lookup.function.parameters, strict: false }] });
      await client.embeddings.create({ model: "text-embedding-3-small", input: ["a", "b"] });
    });
    expect(spans.map((s) => s.name)).toEqual(["openai.responses", "openai.responses", "openai.responses", "openai.embeddings"]);
    expect(spans[1]).toMatchObject({ output: "Orders ship in 2 days." });
    expect(spans[2]!.output).toContain("lookup_order");
    expect(spans[2]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
    expect(spans[3]).toMatchObject({ model: "text-embedding-3-small", input: [{ role: "user", content: "a\nb" }], output: "[2 embedding(s)]" });
  });

  it("an aborted stream is ERRORED, not a success with partial output", async () => {
    const spans = await llmSpans(async () => {
      const abort = new AbortController();
      const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] }, { signal: abort.signal, headers: { "x-fake-stream-delay-ms": "30" } });
      try {
        for await (const _ of stream) abort.abort();
      } catch {
        // the app sees the abort
      }
    });
    expect(spans[0]).toMatchObject({ status: "ERRORED" });
  });

  it("wrapping twice gives one span per call", async () => {
    const twice = wrapOpenAI(wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 })));
    const spans = await llmSpans(() => twice.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }));
    expect(spans).toHaveLength(1);
  });
});

describe("openai 6's helper methods: one span per call, ended by the call (issue 31, as on openai 7)", () => {
  helperMethodTests(() => ({ dev, fake, logger, OpenAI }));
  // Zero-code rides on Node's module hooks, which Bun does not have.
  describe.skipIf("Bun" in globalThis)("zero-code", () => {
    zeroCodeHelperTests("openai 6", () => ({ dev, fake, cwd: packageRoot }));
  });
});

describe("streaming timings in the llm span's metadata", () => {
  const paced = { "x-fake-stream-delay-ms": "15" };
  it("a chat stream: time to first token (from the request to the first content), tokens per second; none for a call not streamed", async () => {
    const spans = await llmSpans(async () => {
      const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] }, { headers: paced });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      expect(text).toBe("Orders ship in 2 days.");
      await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    });
    expect(spans).toHaveLength(2);
    // The role-only first chunk is no token: the first content comes after one pause.
    expectStreamTimings(spans[0]!, { minTtftMs: 15, tokens: 4 });
    expect(timingsOf(spans[1]!)).toEqual({ ttft: undefined, tps: undefined });
  });

  it("responses.stream and a streamed tool call; no rate without usage", async () => {
    const spans = await llmSpans(async () => {
      const stream = client.responses.stream({ model: "gpt-4o-mini", input: "stream it" }, { headers: paced });
      expect((await stream.finalResponse()).output_text).toBe("Orders ship in 2 days.");
      const tools = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, tools: [lookup], messages: [{ role: "user", content: "Where is A-1001?" }] });
      for await (const _ of tools);
    });
    // created, in_progress, output_item.added, content_part.added, then the text deltas.
    expectStreamTimings(spans[0]!, { minTtftMs: 4 * 15, tokens: 4 });
    // The tool call's first chunk carries it: a first token, but no usage asked for, so no rate.
    expect(spans[1]).toMatchObject({ toolsCalled: [{ name: "lookup_order" }] });
    expect(timingsOf(spans[1]!)).toEqual({ ttft: expect.any(Number), tps: undefined });
  });

  it("a stream that fails after its first tokens keeps its time to first token, and no rate", async () => {
    const spans = await llmSpans(async () => {
      const stream = await client.chat.completions.create(
        { model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] },
        { headers: { "x-fake-stream-error-after": "3" } },
      );
      await expect(
        (async () => {
          for await (const _ of stream);
        })(),
      ).rejects.toThrow();
    });
    expect(spans[0]).toMatchObject({ status: "ERRORED" });
    expect(timingsOf(spans[0]!)).toEqual({ ttft: expect.any(Number), tps: undefined });
  });
});

describe("the wrapped client behaves as the raw one", () => {
  it("is the same object, with the same resources", () => {
    const c = new OpenAI({ apiKey: "sk-test", baseURL: fake.url });
    expect(wrapOpenAI(c)).toBe(c);
    expect(c.chat.completions).toBe(c.chat.completions);
    expect(c.responses).toBe(c.responses);
  });

  it("asResponse(), withResponse() and #private-backed get/post work", async () => {
    const response = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).asResponse();
    expect(((await response.json()) as { choices: unknown[] }).choices).toHaveLength(1);
    const { data, response: r2 } = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe("Orders ship in 2 days.");
    expect(r2.status).toBe(200);
    expect(await client.get("/models")).toBeDefined();
  });

  it("errors: the same kind, message and moment as the raw client", async () => {
    const outcome = async (c: OpenAI, body: unknown) => {
      let sync: unknown;
      let promise: Promise<unknown> | undefined;
      try {
        promise = c.chat.completions.create(body as never) as unknown as Promise<unknown>;
      } catch (err) {
        sync = err;
      }
      if (sync) return { when: "sync", kind: (sync as Error).constructor.name, message: (sync as Error).message };
      try {
        await promise;
        return { when: "none" };
      } catch (err) {
        return { when: "async", kind: (err as Error).constructor.name, message: (err as Error).message };
      }
    };
    for (const body of [
      { model: "error-400", messages: [{ role: "user", content: "x" }] },
      { model: "gpt-4o-mini", messages: [{ role: "user", content: [{ type: "text", text: 1n }] }] },
      undefined,
    ]) {
      expect(await outcome(client, body)).toEqual(await outcome(raw, body));
    }
  });

  it("results are the raw client's, field by field", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };
    const [a, b] = [await raw.chat.completions.create(body), await client.chat.completions.create(body)];
    // `created` is the fake's clock in seconds: two calls may straddle a second on a loaded machine.
    expect({ ...b, id: a.id, created: a.created }).toEqual(a);
  });
});
