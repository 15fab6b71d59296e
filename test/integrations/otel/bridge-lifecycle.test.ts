import { type Context, context, ROOT_CONTEXT, type Span, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown, stats } from "../../../src/index.js";
import { configureForTest } from "../../helpers/sdk.js";

// When the app's spans start and end around the LLM spans the bridge keeps (found in review of
// the bridge). The spans here stand for an app's HTTP/job spans and a GenAI instrumentation's
// chat span: the shapes the bridge reads are tested with the real packages next door; these
// tests are about order and timing.
let dev: DevServer;
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter()), new EvaltraceSpanProcessor()] });
const tracer = provider.getTracer("app");
const chat = { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi", "gen_ai.completion.0.content": "yo" };
const uuidOf = (t: string) => `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const names = (traceId: string) => (dev.state.traces[uuidOf(traceId)]?.spans ?? []).map((s) => s.name).sort();

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey, { maxTraceDurationMillis: 300 });
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

describe("the bridge, whatever ends first", () => {
  it("an LLM call left running after the request span ended is kept, under it", async () => {
    let traceId = "";
    let llm!: Span;
    tracer.startActiveSpan("POST /webhook", (req) => {
      traceId = req.spanContext().traceId;
      llm = tracer.startSpan("chat gpt-4o", { attributes: chat });
      req.end();
    });
    await sleep(20);
    llm.end();
    expect(await flush()).toMatchObject({ ok: true, delivered: 1 });
    expect(names(traceId)).toEqual(["POST /webhook", "chat gpt-4o"]);
    expect(stats().openTraces).toBe(0);
  });

  it("an observe() agent that outlives the request span: one trace, the slot given back", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      let work!: Promise<unknown>;
      tracer.startActiveSpan("POST /jobs", (req) => {
        ids.push(req.spanContext().traceId);
        work = observe({ type: "agent", name: "background-agent" }, async () => {
          await sleep(20);
          tracer.startSpan("chat gpt-4o", { attributes: chat }).end();
        })();
        req.end();
      });
      await work;
    }
    expect(await flush()).toMatchObject({ ok: true, delivered: 3 });
    for (const id of ids) expect(names(id)).toEqual(["POST /jobs", "background-agent", "chat gpt-4o"]);
    expect(stats()).toMatchObject({ openTraces: 0, tracesNotRecorded: 0 });
  });

  it("an LLM call started from an observe() trace after it was delivered is a late update, not a second trace", async () => {
    let ctx!: Context;
    const uuid = await observe({ type: "agent", name: "delivered-agent" }, async () => {
      ctx = context.active();
      return currentTraceUuid()!;
    })();
    expect(await flush()).toMatchObject({ ok: true });
    tracer.startSpan("chat later", { attributes: chat }, ctx).end();
    expect(await flush()).toMatchObject({ ok: true });
    expect(dev.state.traces[uuid]!.spans.map((s) => s.name).sort()).toEqual(["chat later", "delivered-agent"]);
    expect(stats()).toMatchObject({ tracesFailed: 0, updatesFailed: 0 });
  });

  it("a kept span waiting on an open app span that ends while the trace is being sent", async () => {
    const req = tracer.startSpan("POST /e");
    const traceId = req.spanContext().traceId;
    const job = tracer.startSpan("bg job", {}, trace.setSpan(ROOT_CONTEXT, req));
    tracer.startSpan("chat under job", { attributes: chat }, trace.setSpan(ROOT_CONTEXT, job)).end();
    req.end();
    const sending = flush();
    job.end();
    await sending;
    await sleep(50);
    expect(await flush()).toMatchObject({ ok: true });
    expect(names(traceId)).toEqual(["POST /e", "chat under job"]);
  });

  it("a long-lived request with no LLM work is never sent, and leaves no trace held", async () => {
    const req = tracer.startSpan("GET /events");
    const traceId = req.spanContext().traceId;
    tracer.startSpan("SELECT", {}, trace.setSpan(ROOT_CONTEXT, req)).end();
    await sleep(500); // past maxTraceDurationMillis
    expect(await flush()).toMatchObject({ ok: true });
    req.end();
    expect(await flush()).toMatchObject({ ok: true });
    expect(names(traceId)).toEqual([]);
    expect(stats().openTraces).toBe(0);
  });

  it("a deep chain of spans, the last still open, goes out whole (the chain is walked once, not once per level)", async () => {
    const root = tracer.startSpan("POST /deep");
    const traceId = root.spanContext().traceId;
    let parent: Span = root;
    const chain: Span[] = [];
    for (let i = 0; i < 4000; i++) {
      parent = tracer.startSpan("chat step", { attributes: chat }, trace.setSpan(ROOT_CONTEXT, parent));
      chain.push(parent);
    }
    const leaf = tracer.startSpan("still open", { attributes: chat }, trace.setSpan(ROOT_CONTEXT, parent));
    for (const s of chain.reverse()) s.end();
    root.end();
    await flush(0);
    leaf.end();
    expect(await flush()).toMatchObject({ ok: true });
    expect(dev.state.traces[uuidOf(traceId)]!.spans).toHaveLength(4002);
  });
});

describe("bridged traces follow the SDK's own admission", () => {
  it("sampleRate applies to a bridged local root and everything under it, observe() included", async () => {
    configureForTest(dev.url, dev.projectKey, { sampleRate: 0 });
    let traceId = "";
    await tracer.startActiveSpan("POST /sampled-out", async (req) => {
      traceId = req.spanContext().traceId;
      await observe({ type: "agent", name: "agent-under-sampled-out" }, async () => {
        tracer.startSpan("chat gpt-4o", { attributes: chat }).end();
      })();
      req.end();
    });
    await flush();
    expect(names(traceId)).toEqual([]);
    expect(Object.values(dev.state.traces).some((t) => t.spans.some((s) => s.name === "agent-under-sampled-out"))).toBe(false);
    configureForTest(dev.url, dev.projectKey, { maxTraceDurationMillis: 300 });
  });

  it("children of a root refused by maxOpenTraces are refused with it", async () => {
    configureForTest(dev.url, dev.projectKey, { maxOpenTraces: 1 });
    const holder = tracer.startSpan("POST /holder");
    const refused = tracer.startSpan("POST /refused");
    tracer.startSpan("chat in refused", { attributes: chat }, trace.setSpan(ROOT_CONTEXT, refused)).end();
    refused.end();
    tracer.startSpan("chat in holder", { attributes: chat }, trace.setSpan(ROOT_CONTEXT, holder)).end();
    holder.end();
    expect(await flush()).toMatchObject({ ok: true, delivered: 1 });
    expect(names(refused.spanContext().traceId)).toEqual([]);
    expect(stats()).toMatchObject({ tracesFailed: 0, tracesNotRecorded: 1 });
    configureForTest(dev.url, dev.projectKey, { maxTraceDurationMillis: 300 });
  });
});
