import { context, ROOT_CONTEXT, type Span, trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroCodeSpanProcessor } from "../../../src/bridge/span-processor.js";
import { flush, stats } from "../../../src/index.js";
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
});
