import { type Span, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush, observe, updateLlmSpan } from "../../../src/index.js";
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

  it("ADK's call_llm span (a model, no operation) around our llm span is a base span", async () => {
    await frameworkSpan("adk", { "gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.5-flash", "gcp.vertex.agent.llm_request": JSON.stringify({ model: "gemini-2.5-flash", contents: [] }) });
    expect((await flush()).ok).toBe(true);
    const t = traceNamed(bridge.dev, "adk");
    expect(outline(t)).toEqual(["agent adk", "  base adk model call", "    llm openai.chat"]);
  });
});
