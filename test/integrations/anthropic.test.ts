import Anthropic from "@anthropic-ai/sdk";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeAnthropic } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown } from "../../src/index.js";
import { wrapAnthropic } from "../../src/integrations/anthropic.js";
import { configureForTest } from "../helpers/sdk.js";
import { expectStreamTimings, timingsOf } from "../helpers/stream-timings.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
let anthropic: Anthropic;
const newClient = () => new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 });
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
  configureForTest(dev.url, dev.projectKey);
  anthropic = wrapAnthropic(newClient(), { metricCollection: "answers" });
});
afterAll(async () => {
  await shutdown(0);
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

const tools = [{ name: "lookup_order", description: "Finds an order", input_schema: { type: "object" as const, properties: { orderId: { type: "string" } }, required: ["orderId"] } }];

describe("wrapAnthropic with the real @anthropic-ai/sdk package", () => {
  it("records messages.create as an llm span: system prompt, messages, output, tokens", async () => {
    const { root, llm } = await llmSpans(async () => {
      const r = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, system: "Be brief", messages: [{ role: "user", content: "When do orders ship?" }] });
      expect(r.content[0]).toMatchObject({ type: "text", text: "Orders ship in 2 days." });
    });
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({
      name: "anthropic.messages.create",
      parentUuid: root.uuid,
      status: "SUCCESS",
      model: "claude-sonnet-4-6",
      provider: "Anthropic",
      integration: "Anthropic",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      inputTokenCount: expect.any(Number),
      outputTokenCount: expect.any(Number),
      metricCollection: "answers",
      llmTestCase: { input: "When do orders ship?", actualOutput: "Orders ship in 2 days." },
      metadata: { stopReason: "end_turn", cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    });
  });

  it("records tool use as toolsCalled and readable output, and tool results in the next call's input", async () => {
    const { llm } = await llmSpans(async () => {
      const first = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, tools, messages: [{ role: "user", content: "Where is my order?" }] });
      const use = first.content.find((b) => b.type === "tool_use")!;
      expect(use).toMatchObject({ name: "lookup_order", input: { orderId: "A-1001" } });
      const second = await anthropic.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 100,
        tools,
        messages: [
          { role: "user", content: "Where is my order?" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "order A-1001 shipped" }] },
        ],
      });
      expect(second.content[0]).toMatchObject({ type: "text" });
    });
    expect(llm[0]).toMatchObject({
      output: 'lookup_order({"orderId":"A-1001"})',
      toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }],
      metadata: { stopReason: "tool_use" },
    });
    const id = (llm[1]!.input as { tool_calls?: { id: string }[] }[])[1]!.tool_calls?.[0]?.id;
    expect(id).toMatch(/^toolu_/);
    expect(llm[1]!.input).toEqual([
      { role: "user", content: "Where is my order?" },
      { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})', tool_calls: [{ id, name: "lookup_order", arguments: { orderId: "A-1001" } }] },
      { role: "tool", content: "order A-1001 shipped", tool_call_id: id },
    ]);
    expect(llm[1]).toMatchObject({ output: "Orders ship in 2 days.", status: "SUCCESS" });
  });

  it("records a streamed create when the stream has been consumed, tool use and usage included", async () => {
    const { llm } = await llmSpans(async () => {
      const stream = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "When?" }] });
      let text = "";
      for await (const event of stream) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      expect(text).toBe("Orders ship in 2 days.");
      const tooled = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, tools, messages: [{ role: "user", content: "Where is my order?" }] });
      for await (const _event of tooled) {
        // consume
      }
    });
    expect(llm[0]).toMatchObject({ name: "anthropic.messages.create", status: "SUCCESS", output: "Orders ship in 2 days.", model: "claude-sonnet-4-6", inputTokenCount: expect.any(Number), outputTokenCount: expect.any(Number) });
    expect(llm[0]!.outputTokenCount).toBeGreaterThan(1);
    expect(llm[1]).toMatchObject({ output: 'lookup_order({"orderId":"A-1001"})', toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }] });
  });

  it("records messages.stream (the SDK's helper, through its own create().withResponse()) as one span", async () => {
    const { llm } = await llmSpans(async () => {
      const stream = anthropic.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 100, system: [{ type: "text", text: "Be brief" }], messages: [{ role: "user", content: "When?" }] });
      let text = "";
      stream.on("text", (t) => {
        text += t;
      });
      const final = await stream.finalMessage();
      expect(final.content[0]).toMatchObject({ text: "Orders ship in 2 days." });
      expect(text).toBe("Orders ship in 2 days.");
    });
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({
      name: "anthropic.messages.stream",
      status: "SUCCESS",
      output: "Orders ship in 2 days.",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When?" },
      ],
    });
  });

  it("records beta.messages.create and beta.messages.stream the same way", async () => {
    const { llm } = await llmSpans(async () => {
      const r = await anthropic.beta.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "When?" }] });
      expect(r.content[0]).toMatchObject({ text: "Orders ship in 2 days." });
      expect(await anthropic.beta.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "When?" }] }).finalText()).toBe("Orders ship in 2 days.");
    });
    expect(llm.map((s) => [s.name, s.status, s.output])).toEqual([
      ["anthropic.beta.messages.create", "SUCCESS", "Orders ship in 2 days."],
      ["anthropic.beta.messages.stream", "SUCCESS", "Orders ship in 2 days."],
    ]);
  });

  it("records cache tokens in metadata", async () => {
    const system = [{ type: "text" as const, text: "A long policy document. ".repeat(20), cache_control: { type: "ephemeral" as const } }];
    const { llm } = await llmSpans(async () => {
      await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, system, messages: [{ role: "user", content: "When?" }] });
      await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, system, messages: [{ role: "user", content: "When?" }] });
    });
    expect((llm[0]!.metadata as Record<string, number>).cacheCreationInputTokens).toBeGreaterThan(0);
    expect((llm[1]!.metadata as Record<string, number>).cacheReadInputTokens).toBeGreaterThan(0);
  });

  it("records errors as ERRORED and rethrows the SDK's own error; a stream error and an aborted stream too", async () => {
    const { llm } = await llmSpans(async () => {
      const err = await anthropic.messages.create({ model: "error-429", max_tokens: 100, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      const stream = await anthropic.messages.create(
        { model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "x" }] },
        { headers: { "x-fake-stream-error-after": "3" } },
      );
      const streamErr = await (async () => {
        for await (const _e of stream) {
          // consume
        }
      })().catch((e: unknown) => e);
      expect(streamErr).toBeInstanceOf(Anthropic.APIError);
      const aborted = await anthropic.messages.create(
        { model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "x" }] },
        { headers: { "x-fake-stream-delay-ms": "20" } },
      );
      let n = 0;
      for await (const _e of aborted) if (++n === 2) aborted.controller.abort();
      const left = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "x" }] });
      for await (const _e of left) break;
    });
    expect(llm.map((s) => s.status)).toEqual(["ERRORED", "ERRORED", "ERRORED", "ERRORED"]);
    expect(llm[0]!.error).toContain("Number of requests has exceeded");
    expect(llm[1]!.error).toContain("Overloaded");
    expect(llm[2]!.error).toContain("aborted");
    expect(llm[3]!.error).toBe("stream cut short: the app stopped reading before its end");
  });
});

describe("wrapAnthropic: streaming timings in the llm span's metadata", () => {
  it("a streamed create and messages.stream: time to first token and tokens per second; a non-streamed call and a failed stream", async () => {
    const delay = { "x-fake-stream-delay-ms": "15" };
    const { llm } = await llmSpans(async () => {
      const stream = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "When?" }] }, { headers: delay });
      for await (const _e of stream);
      expect(await anthropic.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "When?" }] }, { headers: delay }).finalText()).toBe("Orders ship in 2 days.");
      await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "When?" }] });
      const failing = await anthropic.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "x" }] }, { headers: { "x-fake-stream-error-after": "5" } });
      await expect(
        (async () => {
          for await (const _e of failing);
        })(),
      ).rejects.toThrow();
    });
    expect(llm.map((s) => s.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS", "ERRORED"]);
    // message_start, content_block_start and ping carry no token: the first text delta comes
    // after three of the fake server's pauses.
    for (const span of llm.slice(0, 2)) expectStreamTimings(span, { minTtftMs: 3 * 15, tokens: 4 });
    expect(timingsOf(llm[2]!)).toEqual({ ttft: undefined, tps: undefined });
    expect(timingsOf(llm[3]!)).toEqual({ ttft: expect.any(Number), tps: undefined });
  });
});

describe("wrapAnthropic is invisible to the app", () => {
  it("keeps the client, its resources and the SDK's promise object; withResponse() and asResponse() work", async () => {
    const raw = newClient();
    const messages = raw.messages;
    const wrapped = wrapAnthropic(raw);
    expect(wrapped).toBe(raw);
    expect(wrapped.messages).toBe(messages);
    expect(Object.keys(wrapped.messages)).toEqual(Object.keys(newClient().messages));
    const params = { model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user" as const, content: "y" }] };
    const { llm } = await llmSpans(async () => {
      const promise = wrapped.messages.create(params);
      expect(promise).toBeInstanceOf(Promise);
      expect(typeof promise.withResponse).toBe("function");
      const { data, response, request_id } = await promise.withResponse();
      expect(response.status).toBe(200);
      expect(request_id).toMatch(/^req_fake/);
      expect(data.content[0]).toMatchObject({ text: "Orders ship in 2 days." });
      const res = await wrapped.messages.create(params).asResponse();
      expect(((await res.json()) as { content: { text: string }[] }).content[0]!.text).toBe("Orders ship in 2 days.");
      const parsed = await wrapped.messages.parse(params);
      expect(parsed.content[0]).toMatchObject({ text: "Orders ship in 2 days." });
    });
    expect(llm.map((s) => [s.status, s.output])).toEqual([
      ["SUCCESS", "Orders ship in 2 days."],
      ["SUCCESS", "Orders ship in 2 days."],
      ["SUCCESS", "Orders ship in 2 days."],
    ]);
  });

  it("gives the same results and the same errors, at the same time, as the raw client", async () => {
    const raw = newClient();
    const wrapped = wrapAnthropic(newClient());
    const params = { model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user" as const, content: "y" }] };
    const strip = (m: { id: string }) => ({ ...m, id: "" });
    expect(strip(await wrapped.messages.create(params))).toEqual(strip(await raw.messages.create(params)));
    // A call the SDK refuses synchronously throws synchronously through the wrapper too.
    const syncThrow = (c: Anthropic) => {
      try {
        c.messages.create(undefined as never);
        return "no throw";
      } catch (e) {
        return `${(e as Error).constructor.name}: ${(e as Error).message}`;
      }
    };
    expect(syncThrow(wrapped)).toBe(syncThrow(raw));
    // Failures: the same class, status and message, as a rejection.
    for (const model of ["error-400", "error-529"]) {
      type ApiError = InstanceType<typeof Anthropic.APIError>;
      const a = (await raw.messages.create({ ...params, model }).catch((e: unknown) => e)) as ApiError;
      const b = (await wrapped.messages.create({ ...params, model }).catch((e: unknown) => e)) as ApiError;
      expect(b.constructor).toBe(a.constructor);
      expect([b.status, b.message.replace(/req_fake\d+/, "")]).toEqual([a.status, a.message.replace(/req_fake\d+/, "")]);
    }
    // Content the SDK accepts (a BigInt) never throws from our code.
    const big = await wrapped.messages.create({ ...params, metadata: { user_id: 1n as never } }).catch((e: unknown) => e);
    const bigRaw = await raw.messages.create({ ...params, metadata: { user_id: 1n as never } }).catch((e: unknown) => e);
    expect((big as Error).constructor).toBe((bigRaw as Error).constructor);
  });

  it("is idempotent: wrapping twice records one span per call; a withOptions() copy is traced too", async () => {
    const client = wrapAnthropic(wrapAnthropic(newClient()));
    const { llm } = await llmSpans(async () => {
      await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "once" }] });
      await client.withOptions({ timeout: 5000 }).messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "copy" }] });
    });
    expect(llm.map((s) => (s.input as { content: string }[])[0]!.content)).toEqual(["once", "copy"]);
  });

  it("leaves calls untouched when tracing is off", async () => {
    const before = Object.keys(dev.state.traces).length;
    configureForTest(dev.url, "", {});
    const plain = wrapAnthropic(newClient());
    const r = await plain.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "z" }] });
    expect(r.content[0]).toMatchObject({ text: "Orders ship in 2 days." });
    await flush();
    expect(Object.keys(dev.state.traces).length).toBe(before);
    configureForTest(dev.url, dev.projectKey);
  });
});

// Last in this file: once an EvaltraceSpanProcessor exists, the process is bridged.
describe("wrapAnthropic beside the SDK's own OpenTelemetry tracing", () => {
  it("records one llm span per call when the app's provider has an EvaltraceSpanProcessor", async () => {
    const appExporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter), new EvaltraceSpanProcessor()] }));
    try {
      // The SDK does trace itself here: a raw client's call is an `anthropic.messages.create` span.
      await newClient().messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "raw" }] });
      expect(appExporter.getFinishedSpans().map((s) => s.name)).toContain("anthropic.messages.create");
      appExporter.reset();
      const client = wrapAnthropic(newClient());
      const { llm } = await llmSpans(async () => {
        await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "one" }] });
        const stream = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "two" }] });
        for await (const _e of stream) {
          // consume
        }
        await client.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "three" }] }).finalMessage();
      });
      expect(llm.map((s) => [s.name, s.integration, s.status])).toEqual([
        ["anthropic.messages.create", "Anthropic", "SUCCESS"],
        ["anthropic.messages.create", "Anthropic", "SUCCESS"],
        ["anthropic.messages.stream", "Anthropic", "SUCCESS"],
      ]);
      // The trade: the wrapped client's calls leave the SDK's own span out.
      expect(appExporter.getFinishedSpans().map((s) => s.name)).not.toContain("anthropic.messages.create");
      // The client's tracer is back in place after each call.
      expect((client as unknown as { _tracer?: unknown })._tracer).toBeDefined();
    } finally {
      trace.disable();
    }
  });
});
