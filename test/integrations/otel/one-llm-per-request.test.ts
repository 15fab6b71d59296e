import { type Span, trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvaltraceSpanProcessor, flush, observe, updateLlmSpan } from "../../../src/index.js";
import { outline, startBridge, traceNamed } from "./bridge.js";

// Issue 43: with zero-code and a framework's own telemetry both on, a model request is seen twice:
// the framework's llm span (ADK's `call_llm`, Strands' and TanStack AI's `chat`) and, inside it,
// ours (the SDK's call, zero-code). One llm span per request: ours, the real request, is kept as
// the llm span (its tokens counted once); the framework's becomes a base span around it. Ours is
// stood in for here by an observe() llm span, which starts as the zero-code integrations' do.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  bridge = await startBridge({ maxTraceDurationMillis: 5_000 });
});
afterAll(async () => bridge?.close());

const ourCall = observe({ type: "llm", name: "openai.chat" }, async () => {
  updateLlmSpan({ model: "gpt-4o", inputTokenCount: 12, outputTokenCount: 3 });
  return "Tomorrow.";
});

async function frameworkSpan(name: string, attributes: Record<string, string | number>): Promise<void> {
  const tracer = trace.getTracer("framework");
  await tracer.startActiveSpan("invoke_agent weather", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name } }, async (agent: Span) => {
    await tracer.startActiveSpan(`${name} model call`, { attributes }, async (call: Span) => {
      await ourCall();
      call.setAttributes({ "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3 });
      call.end();
    });
    agent.end();
  });
}

describe("one llm span per model request, zero-code and a framework's telemetry both on", () => {
  it("a framework's chat span around our llm span is a base span: one llm span, tokens once (Strands, TanStack AI)", async () => {
    await frameworkSpan("strands", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o" });
    expect((await flush()).ok).toBe(true);
    const t = traceNamed(bridge.dev, "strands");
    expect(outline(t)).toEqual(["agent strands", "  base strands model call", "    llm openai.chat"]);
    expect(t.spans.filter((s) => s.inputTokenCount !== undefined).map((s) => s.inputTokenCount)).toEqual([12]);
  });

  it("VoltAgent's llm span (one AI SDK call) around the AI SDK's own spans of that call (zero-code turns them on) is a base span: their llm spans alone count", async () => {
    const voltagent = trace.getTracer("@voltagent/core");
    // Zero-code makes the AI SDK's spans with a provider of its own (auto/hooks/ai-sdk.ts), the app's
    // provider has VoltAgent's: two span processors, one trace.
    const aiSdk = new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }).getTracer("ai");
    const common = { "entity.type": "agent", "entity.name": "WeatherAgent", "operation.id": "op1" };
    const step = (n: number) =>
      aiSdk.startActiveSpan("ai.generateText.doGenerate", { attributes: { "ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o", "ai.model.provider": "openai.responses", "ai.usage.promptTokens": n, "ai.usage.completionTokens": 3 } }, (s: Span) => s.end());
    await voltagent.startActiveSpan("WeatherAgent", { attributes: common }, async (agent: Span) => {
      await voltagent.startActiveSpan("llm:generateText", { attributes: { ...common, "span.type": "llm", "llm.model": "gpt-4o", "llm.messages": "[]" } }, async (call: Span) => {
        await aiSdk.startActiveSpan("ai.generateText", { attributes: { "ai.operationId": "ai.generateText", "ai.model.id": "gpt-4o" } }, async (generate: Span) => {
          step(20);
          step(9);
          generate.end();
        });
        call.setAttributes({ "llm.usage.prompt_tokens": 9, "llm.usage.completion_tokens": 3 });
        call.end();
      });
      agent.end();
    });
    expect((await flush()).ok).toBe(true);
    const t = traceNamed(bridge.dev, "WeatherAgent");
    expect(outline(t)).toEqual(["agent WeatherAgent", "  base llm:generateText", "    base ai.generateText", "      llm ai.generateText.doGenerate", "      llm ai.generateText.doGenerate"]);
    expect(t.spans.filter((s) => s.inputTokenCount !== undefined).map((s) => s.inputTokenCount)).toEqual([20, 9]);
  });

  it("ADK's call_llm span (a model, no operation) around our llm span is a base span", async () => {
    await frameworkSpan("adk", { "gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.5-flash", "gcp.vertex.agent.llm_request": JSON.stringify({ model: "gemini-2.5-flash", contents: [] }) });
    expect((await flush()).ok).toBe(true);
    const t = traceNamed(bridge.dev, "adk");
    expect(outline(t)).toEqual(["agent adk", "  base adk model call", "    llm openai.chat"]);
  });
});
