import { createOpenAI } from "@ai-sdk/openai";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { embed, embedMany, generateObject, generateText, stepCountIs, streamObject, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredTrace } from "../../src/devserver/store/store.js";
import { EvaltraceSpanProcessor, flush, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
// The app's own OTel setup: its exporter, plus ours beside it.
const appExporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter), new EvaltraceSpanProcessor({ metricCollection: "answers" })] });
const tracer = provider.getTracer("app");

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey); // also registers the AsyncLocalStorage context manager
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

function storedBy(predicate: (t: StoredTrace) => boolean): StoredTrace[] {
  return Object.values(dev.state.traces).filter(predicate);
}

describe("EvaltraceSpanProcessor in an existing OTel setup", () => {
  it("keeps GenAI spans, leaves HTTP spans out and re-parents across them", async () => {
    let traceId = "";
    tracer.startActiveSpan("GET /chat", (http) => {
      traceId = http.spanContext().traceId;
      tracer.startActiveSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.system": "openai" } }, (chat) => {
        tracer.startActiveSpan("POST api.openai.com", (db) => {
          tracer.startActiveSpan("execute_tool lookup", { attributes: { "gen_ai.tool.name": "lookup", "gen_ai.tool.description": "Finds orders" } }, (tl) => {
            tl.setStatus({ code: SpanStatusCode.ERROR, message: "order service down" });
            tl.end();
          });
          db.end();
        });
        chat.setAttributes({
          "gen_ai.response.model": "gpt-4o-2024-08-06",
          "gen_ai.usage.input_tokens": 30,
          "gen_ai.usage.output_tokens": 9,
          "gen_ai.prompt.0.role": "user",
          "gen_ai.prompt.0.content": "Where is my order?",
          "gen_ai.completion.0.content": "It ships tomorrow.",
        });
        chat.end();
      });
      http.end();
    });
    expect((await flush()).ok).toBe(true);
    const uuid = `${traceId.slice(0, 8)}-${traceId.slice(8, 12)}-${traceId.slice(12, 16)}-${traceId.slice(16, 20)}-${traceId.slice(20)}`;
    const stored = dev.state.traces[uuid]!;
    // The local root is kept as the trace's one root (a base span named after it); the HTTP call
    // between the chat and its tool is left out, the tool re-parented to the chat.
    expect(stored.spans.map((s) => s.name).sort()).toEqual(["GET /chat", "chat gpt-4o", "lookup"]);
    const root = stored.spans.find((s) => s.name === "GET /chat")!;
    expect(root).toMatchObject({ type: "base" });
    expect(root.parentUuid).toBeUndefined();
    const chat = stored.spans.find((s) => s.name === "chat gpt-4o")!;
    expect(chat).toMatchObject({
      type: "llm",
      model: "gpt-4o-2024-08-06",
      provider: "OpenAI",
      inputTokenCount: 30,
      outputTokenCount: 9,
      input: [{ role: "user", content: "Where is my order?" }],
      output: "It ships tomorrow.",
      integration: "OpenTelemetry GenAI",
    });
    expect(chat.parentUuid).toBe(root.uuid);
    expect(stored.spans.find((s) => s.name === "lookup")).toMatchObject({ type: "tool", parentUuid: chat.uuid, status: "ERRORED", error: "order service down", description: "Finds orders" });
    // The app's own exporter still got everything.
    expect(appExporter.getFinishedSpans().map((s) => s.name).sort()).toEqual(["GET /chat", "POST api.openai.com", "chat gpt-4o", "execute_tool lookup"]);
  });
});

describe("the Vercel AI SDK (real ai package) through the span processor", () => {
  const openai = () => createOpenAI({ apiKey: "sk-test", baseURL: fake.url });

  it("turns generateText with a tool loop into llm and tool spans", async () => {
    const result = await generateText({
      model: openai().chat("gpt-4o-mini"),
      prompt: "Where is order A-1001?",
      tools: {
        lookupOrder: tool({
          description: "Finds an order",
          inputSchema: z.object({ orderId: z.string() }),
          execute: async ({ orderId }) => ({ orderId, status: "shipped" }),
        }),
      },
      stopWhen: stepCountIs(3),
      experimental_telemetry: { isEnabled: true, tracer, functionId: "support" },
    });
    expect(result.text).toBe("Orders ship in 2 days.");
    expect((await flush()).ok).toBe(true);
    const [stored] = storedBy((t) => t.spans.some((s) => s.name === "lookupOrder"));
    expect(stored).toBeDefined();
    const byName = (n: string) => stored!.spans.filter((s) => s.name === n);
    const root = stored!.spans.find((s) => s.parentUuid === undefined)!;
    expect(root.name).toBe("ai.generateText support");
    const llm = stored!.spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(2);
    for (const s of llm) expect(s).toMatchObject({ parentUuid: root.uuid, model: "gpt-4o-mini-2024-07-18", integration: "AI SDK" });
    expect(llm.map((s) => [s.inputTokenCount, s.outputTokenCount])).toEqual([
      [20, 7],
      [11, 4],
    ]);
    expect(llm[1]!.output).toBe("Orders ship in 2 days.");
    // Online evaluation: the collection and a test case from the prompt and the reply.
    expect(llm[1]).toMatchObject({ metricCollection: "answers", llmTestCase: { input: "Where is order A-1001?", actualOutput: "Orders ship in 2 days." } });
    expect(byName("lookupOrder")[0]).toMatchObject({ type: "tool", input: { orderId: "A-1001" }, output: { orderId: "A-1001", status: "shipped" } });
    expect(stored!.fields).toMatchObject({ input: "Where is order A-1001?", output: "Orders ship in 2 days." });
  });

  it("turns streamText into an llm span that ends with the assembled output", async () => {
    const result = streamText({ model: openai().chat("gpt-4o-mini"), prompt: "When?", experimental_telemetry: { isEnabled: true, tracer, functionId: "stream" } });
    let text = "";
    for await (const chunk of result.textStream) text += chunk;
    expect(text).toBe("Orders ship in 2 days.");
    await result.consumeStream();
    expect((await flush()).ok).toBe(true);
    const [stored] = storedBy((t) => t.spans.some((s) => s.name === "ai.streamText stream"));
    const llm = stored!.spans.find((s) => s.type === "llm")!;
    expect(llm).toMatchObject({ name: "ai.streamText.doStream", output: "Orders ship in 2 days.", model: "gpt-4o-mini-2024-07-18" });
  });

  it("generateObject and streamObject: the object is the output", async () => {
    const schema = z.object({ answer: z.string() });
    const generated = await generateObject({ model: openai().chat("gpt-4o-mini"), schema, prompt: "When?", experimental_telemetry: { isEnabled: true, tracer, functionId: "object" } });
    const streamed = streamObject({ model: openai().chat("gpt-4o-mini"), schema, prompt: "When?", experimental_telemetry: { isEnabled: true, tracer, functionId: "object-stream" } });
    for await (const _ of streamed.partialObjectStream) {
      // consumed
    }
    await streamed.object;
    expect((await flush()).ok).toBe(true);
    for (const [functionId, rootName, callName] of [
      ["object", "ai.generateObject object", "ai.generateObject.doGenerate"],
      ["object-stream", "ai.streamObject object-stream", "ai.streamObject.doStream"],
    ] as const) {
      const [stored] = storedBy((t) => t.spans.some((s) => s.name === rootName));
      expect(stored, functionId).toBeDefined();
      const root = stored!.spans.find((s) => s.name === rootName)!;
      const call = stored!.spans.find((s) => s.name === callName)!;
      expect(JSON.parse(String(root.output))).toEqual(generated.object);
      expect(call).toMatchObject({ type: "llm", model: expect.stringContaining("gpt-4o-mini") });
      expect(JSON.parse(String(call.output))).toEqual(generated.object);
    }
  });

  it("embed and embedMany: the embedded text in, the count of embeddings out, with the model and tokens", async () => {
    await embed({ model: openai().textEmbeddingModel("text-embedding-3-small"), value: "orders", experimental_telemetry: { isEnabled: true, tracer, functionId: "one" } });
    await embedMany({ model: openai().textEmbeddingModel("text-embedding-3-small"), values: ["a", "b"], experimental_telemetry: { isEnabled: true, tracer, functionId: "many" } });
    expect((await flush()).ok).toBe(true);
    const [one] = storedBy((t) => t.spans.some((s) => s.name === "ai.embed one"));
    expect(one!.spans.find((s) => s.name === "ai.embed one")).toMatchObject({ type: "base", input: "orders", output: "[1 embedding]" });
    expect(one!.spans.find((s) => s.name === "ai.embed.doEmbed")).toMatchObject({ type: "llm", model: "text-embedding-3-small", output: "[1 embedding(s)]" });
    const [many] = storedBy((t) => t.spans.some((s) => s.name === "ai.embedMany many"));
    expect(many!.spans.find((s) => s.name === "ai.embedMany many")).toMatchObject({ input: "a\nb", output: "[2 embedding(s)]" });
  });

  it("an aborted streamText keeps its model call (the AI SDK never ends it: closed and marked unfinished)", async () => {
    configureForTest(dev.url, dev.projectKey, { maxTraceDurationMillis: 200 });
    const abort = new AbortController();
    const result = streamText({ model: openai().chat("gpt-4o-mini"), prompt: "When?", abortSignal: abort.signal, headers: { "x-fake-stream-delay-ms": "50" }, experimental_telemetry: { isEnabled: true, tracer, functionId: "aborted" } });
    let chunks = 0;
    try {
      for await (const _ of result.textStream) if (++chunks === 1) abort.abort();
    } catch {
      // the app sees the abort
    }
    await new Promise((r) => setTimeout(r, 400));
    expect((await flush()).ok).toBe(true);
    const [stored] = storedBy((t) => t.spans.some((s) => s.name === "ai.streamText aborted"));
    expect(stored!.spans.map((s) => s.name).sort()).toEqual(["ai.streamText aborted", "ai.streamText.doStream"]);
    const call = stored!.spans.find((s) => s.name === "ai.streamText.doStream")!;
    expect(call).toMatchObject({ type: "llm", metadata: { "evaltrace.unfinished": true } });
    configureForTest(dev.url, dev.projectKey);
  });

  it("two calls inside the app's own request span: one trace, rooted at that span", async () => {
    let traceId = "";
    await tracer.startActiveSpan("POST /chat", async (request) => {
      traceId = request.spanContext().traceId;
      await generateText({ model: openai().chat("gpt-4o-mini"), prompt: "one", experimental_telemetry: { isEnabled: true, tracer } });
      await generateText({ model: openai().chat("gpt-4o-mini"), prompt: "two", experimental_telemetry: { isEnabled: true, tracer } });
      request.end();
    });
    expect((await flush()).ok).toBe(true);
    const [stored] = storedBy((t) => t.spans.some((s) => s.uuid.replace(/-/g, "").startsWith(traceId.slice(0, 16))));
    const root = stored!.spans.find((s) => !s.parentUuid)!;
    expect(root).toMatchObject({ name: "POST /chat", type: "base" });
    expect(stored!.spans.filter((s) => s.parentUuid === root.uuid).map((s) => s.name)).toEqual(["ai.generateText", "ai.generateText"]);
  });

  it("is a no-op for the app's tracing when evaltrace has no key", async () => {
    void context;
    void trace;
    configureForTest(dev.url, "");
    const before = Object.keys(dev.state.traces).length;
    const r = await generateText({ model: openai().chat("gpt-4o-mini"), prompt: "x", experimental_telemetry: { isEnabled: true, tracer } });
    expect(r.text).toBe("Orders ship in 2 days.");
    await flush();
    expect(Object.keys(dev.state.traces).length).toBe(before);
    configureForTest(dev.url, dev.projectKey);
  });
});
