import { type Span, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush } from "../../../src/index.js";
import { outline, startBridge, traceNamed } from "./bridge.js";

// Issue 43: TanStack AI's otelMiddleware records nothing of a model request that answered with
// tool calls but `finish_reasons: ["tool_calls"]`; the tools it ran are `execute_tool` spans under
// that request's iteration span (@tanstack/ai 0.58, middlewares/otel.js; the shapes below are
// what it emitted in test/realworld/frameworks/tanstack-ai.test.ts). The llm span's output and
// toolsCalled are read from those tool spans.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  bridge = await startBridge({ maxTraceDurationMillis: 5_000 });
});
afterAll(async () => bridge?.close());

const tracer = () => trace.getTracer("my-app");
const iteration = { "gen_ai.system": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5.5", "gen_ai.input.messages": JSON.stringify([{ role: "user", content: "hi" }]) };

describe("an llm span that recorded no reply, with tool spans under it", () => {
  it("has the calls its tool spans ran as output and toolsCalled (TanStack AI's iteration span)", async () => {
    tracer().startActiveSpan("chat gpt-5.5", { attributes: { "gen_ai.system": "openai", "gen_ai.request.model": "gpt-5.5" } }, (root: Span) => {
      tracer().startActiveSpan("chat gpt-5.5 #0", { attributes: iteration }, (call: Span) => {
        tracer().startActiveSpan("execute_tool get_weather", { attributes: { "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1", "gen_ai.tool.type": "function" } }, (tool: Span) => {
          tool.setAttributes({ "gen_ai.input.messages": JSON.stringify([{ role: "tool", content: '{"location":"Paris"}' }]), "gen_ai.output.messages": JSON.stringify([{ role: "tool", content: '{"temperature":72}' }]) });
          tool.end();
        });
        call.setAttributes({ "gen_ai.response.finish_reasons": ["tool_calls"], "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 7 });
        call.end();
      });
      root.end();
    });
    expect((await flush()).ok).toBe(true);
    const t = traceNamed(bridge.dev, "chat gpt-5.5");
    expect(outline(t)).toEqual(["base chat gpt-5.5", "  llm chat gpt-5.5 #0", "    tool get_weather"]);
    const llm = t.spans.find((s) => s.type === "llm")!;
    expect({ output: llm.output, toolsCalled: llm.toolsCalled }).toEqual({ output: 'get_weather({"location":"Paris"})', toolsCalled: [{ name: "get_weather", inputParameters: { location: "Paris" } }] });
  });

  it("keeps the reply it recorded when it has one", async () => {
    tracer().startActiveSpan("chat gpt-5.5 answered", { attributes: iteration }, (call: Span) => {
      tracer().startActiveSpan("execute_tool lookup", { attributes: { "gen_ai.tool.name": "lookup" } }, (tool: Span) => tool.end());
      call.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", content: "Sunny." }]));
      call.end();
    });
    expect((await flush()).ok).toBe(true);
    const llm = traceNamed(bridge.dev, "chat gpt-5.5 answered").spans.find((s) => s.type === "llm")!;
    expect({ output: llm.output, toolsCalled: llm.toolsCalled }).toEqual({ output: "Sunny.", toolsCalled: undefined });
  });
});
