import { context, ROOT_CONTEXT, type Span, trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroCodeSpanProcessor } from "../../../src/bridge/span-processor.js";
import { flush, observe, stats } from "../../../src/index.js";
import { captureTraces } from "../../../src/testing/index.js";
import { openSpan } from "../../../src/tracing/manual-span.js";
import { outline, startBridge, traceNamed } from "./bridge.js";

// Issue 43: a model request seen by one of our integrations (zero-code) and by the app's framework
// telemetry, with nothing tying the two: the framework runs the model outside its span's context
// (Strands, TanStack AI) or builds its spans after the run (OpenInference's BeeAI). Ours is then a
// trace of its own; the model-call fold (src/traces/model-call-fold.ts) keeps the request once, as
// the framework's span, filled in from ours. Ours is made here as the integrations make theirs
// (openSpan), outside any context.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  bridge = await startBridge({ maxTraceDurationMillis: 10_000 });
});
afterAll(async () => bridge?.close());

const tracer = () => trace.getTracer("framework");

/** Our integration's span of one request, a root: run outside every context, as an SDK call the framework's span is not active around. */
function ourCall(tokens: [number, number], model = "gpt-4o-2024-08-06"): void {
  context.with(ROOT_CONTEXT, () => {
    const span = openSpan("openai.chat", "llm", { model, inputTokenCount: tokens[0], outputTokenCount: tokens[1] }, [{ role: "user", content: "hi" }]);
    span?.end("Tomorrow.");
  });
}

const llmTokens = (name: string) =>
  traceNamed(bridge.dev, name)
    .spans.filter((s) => s.type === "llm")
    .map((s) => [s.name, s.model, s.inputTokenCount, s.outputTokenCount]);

describe("a model request or tool call recorded both by an integration and by the app's framework telemetry is recorded once", () => {
  it("the framework's chat span open but not active around our call (TanStack AI, Strands): one trace, the framework's llm span, tokens once; counted in stats().modelCallsFolded", async () => {
    const before = stats().modelCallsFolded;
    const agent = tracer().startSpan("invoke_agent tanstack", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "tanstack" } });
    const chat = tracer().startSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o" } }, trace.setSpan(ROOT_CONTEXT, agent));
    ourCall([12, 3]);
    chat.setAttributes({ "gen_ai.response.model": "gpt-4o-2024-08-06", "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3 });
    chat.end();
    agent.end();
    expect((await flush()).ok).toBe(true);
    expect(outline(traceNamed(bridge.dev, "tanstack"))).toEqual(["agent tanstack", "  llm chat gpt-4o"]);
    expect(Object.values(bridge.dev.state.traces).filter((t) => t.spans.some((s) => s.name === "openai.chat"))).toEqual([]);
    expect(llmTokens("tanstack")).toEqual([["chat gpt-4o", "gpt-4o-2024-08-06", 12, 3]]);
    expect(stats().modelCallsFolded).toBe(before + 1);
  });

  it("the framework's spans built after the run, with no token counts (OpenInference's BeeAI): matched by model and time, its llm span filled in with ours", async () => {
    const started = Date.now() - 5;
    ourCall([20, 7]);
    const agent = tracer().startSpan("beeai agent", { startTime: started - 5, attributes: { "openinference.span.kind": "AGENT" } });
    const llm = tracer().startSpan("backend.openai.chat", { startTime: started, attributes: { "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o" } }, trace.setSpan(ROOT_CONTEXT, agent));
    llm.end();
    agent.end();
    expect((await flush()).ok).toBe(true);
    expect(outline(traceNamed(bridge.dev, "beeai agent"))).toEqual(["agent beeai agent", "  llm backend.openai.chat"]);
    expect(llmTokens("beeai agent")).toEqual([["backend.openai.chat", "gpt-4o", 20, 7]]);
    // Its input and output, which OpenInference's span here lacks, are ours.
    expect(traceNamed(bridge.dev, "beeai agent").spans.find((s) => s.type === "llm")).toMatchObject({ input: [{ role: "user", content: "hi" }], output: "Tomorrow." });
    expect(Object.values(bridge.dev.state.traces).filter((t) => t.spans.some((s) => s.name === "openai.chat"))).toEqual([]);
  });

  it("a request of ours the framework did not make (other token counts) is sent as it is, by the next flush without waiting for the hold", async () => {
    const before = stats().modelCallsFolded;
    const agent = tracer().startSpan("invoke_agent other", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "other" } });
    const chat = tracer().startSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": 1 } }, trace.setSpan(ROOT_CONTEXT, agent));
    ourCall([40, 2]);
    chat.end();
    agent.end();
    const t0 = Date.now();
    expect((await flush()).ok).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(llmTokens("other")).toEqual([["chat gpt-4o", "gpt-4o", 5, 1]]);
    expect(llmTokens("openai.chat")).toEqual([["openai.chat", "gpt-4o-2024-08-06", 40, 2]]);
    expect(stats().modelCallsFolded).toBe(before);
  });

  it("our own span inside the framework's active span stays the llm span, the framework's a base span around it (nothing held)", async () => {
    await tracer().startActiveSpan("invoke_agent nested", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "nested" } }, async (agent: Span) => {
      await tracer().startActiveSpan("chat nested", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o" } }, async (chat: Span) => {
        openSpan("openai.chat nested", "llm", { model: "gpt-4o", inputTokenCount: 1, outputTokenCount: 1 })?.end("ok");
        chat.end();
      });
      agent.end();
    });
    expect((await flush()).ok).toBe(true);
    expect(outline(traceNamed(bridge.dev, "nested"))).toEqual(["agent nested", "  base chat nested", "    llm openai.chat nested"]);
  });

  it("a tool call the AI SDK's telemetry (zero-code's provider) and the app's framework both record, the framework's span started under its agent inside the AI SDK's (VoltAgent): one tool span, the framework's", async () => {
    const aiSdk = new BasicTracerProvider({ spanProcessors: [zeroCodeSpanProcessor()] }).getTracer("ai");
    const agent = tracer().startSpan("invoke_agent twin", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "twin" } });
    await aiSdk.startActiveSpan("ai.toolCall", { attributes: { "ai.operationId": "ai.toolCall", "ai.toolCall.name": "get_weather", "ai.toolCall.id": "c1", "ai.toolCall.args": '{"city":"Paris"}' } }, async (call: Span) => {
      const tool = tracer().startSpan("execute_tool get_weather", { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather" } }, trace.setSpan(ROOT_CONTEXT, agent));
      tool.end();
      call.end();
    });
    agent.end();
    expect((await flush()).ok).toBe(true);
    expect(outline(traceNamed(bridge.dev, "twin"))).toEqual(["agent twin", "  tool get_weather"]);
    expect(Object.values(bridge.dev.state.traces).filter((t) => t.spans.some((s) => s.name === "get_weather" && !s.parentUuid))).toEqual([]);
  });

  it("the same token counts at another time, or another model of the family (gpt-4o-mini for gpt-4o), are not the same request: nothing folded", async () => {
    const before = stats().modelCallsFolded;
    const agent = tracer().startSpan("invoke_agent apart", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "apart" } });
    const attributes = { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3 };
    const earlier = tracer().startSpan("chat earlier", { startTime: Date.now() - 10_000, attributes }, trace.setSpan(ROOT_CONTEXT, agent));
    const now = tracer().startSpan("chat now", { attributes }, trace.setSpan(ROOT_CONTEXT, agent));
    ourCall([12, 3], "gpt-4o-mini");
    ourCall([12, 3]);
    earlier.end(Date.now() - 9_000);
    // The one at the same time, with the same model: that one is folded.
    now.end();
    agent.end();
    expect((await flush()).ok).toBe(true);
    expect(stats().modelCallsFolded).toBe(before + 1);
    const mini = Object.values(bridge.dev.state.traces).filter((t) => t.spans.some((s) => s.name === "openai.chat" && s.model === "gpt-4o-mini"));
    expect(mini).toHaveLength(1);
  });

  it("a held trace with a span of the app's still running when the framework's span matches it is sent, not folded (that span is not lost)", async () => {
    const before = stats().modelCallsFolded;
    const agent = tracer().startSpan("invoke_agent busy", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "busy" } });
    const chat = tracer().startSpan("chat gpt-4o", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o" } }, trace.setSpan(ROOT_CONTEXT, agent));
    let finish: () => void = () => {};
    const step = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let running: Promise<void> | undefined;
    context.with(ROOT_CONTEXT, () => {
      const span = openSpan("openai.chat busy", "llm", { model: "gpt-4o", inputTokenCount: 30, outputTokenCount: 4 });
      if (span) context.with(span.context, () => (running = observe({ name: "app step after the call" }, () => step)()));
      span?.end("ok");
    });
    chat.setAttributes({ "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 4 });
    chat.end();
    agent.end();
    finish();
    await running;
    expect((await flush()).ok).toBe(true);
    expect(stats().modelCallsFolded).toBe(before);
    expect(outline(traceNamed(bridge.dev, "openai.chat busy"))).toEqual(["llm openai.chat busy", "  base app step after the call"]);
  });

  it("while a capture of evaltrace/testing records, nothing is held: the trace is captured at once", () => {
    const capture = captureTraces();
    try {
      ourCall([1, 2]);
      expect(capture.spans().map((s) => s.name)).toEqual(["openai.chat"]);
    } finally {
      capture.stop();
    }
  });

  it("a twin tool span with a span of its own under it is kept, with the framework's beside it (what the tool did is not moved elsewhere)", async () => {
    const aiSdk = new BasicTracerProvider({ spanProcessors: [zeroCodeSpanProcessor()] }).getTracer("ai");
    const agent = tracer().startSpan("invoke_agent twin-with-child", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "twin-with-child" } });
    await aiSdk.startActiveSpan("ai.toolCall", { attributes: { "ai.operationId": "ai.toolCall", "ai.toolCall.name": "lookup", "ai.toolCall.id": "c2", "ai.toolCall.args": "{}" } }, async (call: Span) => {
      const tool = tracer().startSpan("execute_tool lookup", { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup" } }, trace.setSpan(ROOT_CONTEXT, agent));
      await observe({ name: "inside the tool" }, async () => "done")();
      tool.end();
      call.end();
    });
    agent.end();
    expect((await flush()).ok).toBe(true);
    expect(outline(traceNamed(bridge.dev, "twin-with-child"))).toEqual(["agent twin-with-child", "  tool lookup"]);
    const aiTrace = Object.values(bridge.dev.state.traces).find((t) => t.spans.some((s) => s.name === "inside the tool"));
    expect(aiTrace && outline(aiTrace)).toEqual(["tool lookup", "  base inside the tool"]);
  });
});
