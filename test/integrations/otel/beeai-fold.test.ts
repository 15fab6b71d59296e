import { type Attributes, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush } from "../../../src/index.js";
import { outline, startBridge, traceNamed } from "./bridge.js";

// Issue 43: OpenInference's BeeAI instrumentation (Arize-ai/openinference
// js/packages/openinference-instrumentation-beeai: src/middleware.ts, helpers/buildTraceTree.ts,
// helpers/getSerializedObjectSafe.ts) records a run after it finished: a `beeai-framework-main`
// AGENT span with the prompt and the answer, and one span per framework event, named by its
// emitter path (`<path>-<n>`), with `target` (the path) and `name` (the event) attributes. A model
// call gives three LLM spans (start: input messages, model; success: output messages, tokens;
// finish: the kind alone), a tool run three TOOL spans (start: parameters; success: output;
// finish: the kind alone); the agent's own events are AGENT spans, the parents of those.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  bridge = await startBridge({ maxTraceDurationMillis: 5_000 });
});
afterAll(async () => bridge?.close());

const j = (v: unknown) => JSON.stringify(v);
const KIND = "openinference.span.kind";

// Each event a millisecond after the one before: spans made in one synchronous burst can share a
// microsecond (the stored precision), and their order would then be a tie (seen on Bun).
let clock = Date.now();
const tick = () => (clock += 1);

function event(tracer: Tracer, path: string, n: number, attributes: Attributes, inside?: () => void): void {
  const name = path.slice(path.lastIndexOf(".") + 1);
  tracer.startActiveSpan(`${path}-${n}`, { startTime: tick(), attributes: { target: path, name, traceId: "bee-trace", ...attributes } }, (span) => {
    inside?.();
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(tick());
  });
}

function chatModelCall(tracer: Tracer, n: number, input: string, output: { text?: string; toolCall?: string }, tokens: [number, number]): void {
  const model = { "llm.model_name": "gpt-4o-mini", "llm.provider": "openai" };
  event(tracer, "backend.openai.chat.start", n, { [KIND]: "LLM", ...model, "input.mime_type": "application/json", "input.value": j([{ role: "user", content: [{ type: "text", text: input }] }]), "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": input });
  event(tracer, "backend.openai.chat.success", n, {
    [KIND]: "LLM",
    ...model,
    "llm.token_count.prompt": tokens[0],
    "llm.token_count.completion": tokens[1],
    "llm.output_messages.0.message.role": "assistant",
    "llm.output_messages.0.message.content": output.text ?? "",
    ...(output.toolCall ? { "output.mime_type": "application/json", "output.value": output.toolCall } : {}),
  });
  event(tracer, "backend.openai.chat.finish", n, { [KIND]: "LLM" });
}

describe("OpenInference's BeeAI spans, folded", () => {
  it("one llm span per model call (input from its start event, output and tokens from its success event) and one tool span per tool run; the agent's event spans and the finish spans left out", async () => {
    const tracer = trace.getTracer("@arizeai/openinference-instrumentation-beeai");
    tracer.startActiveSpan("beeai-framework-main", { startTime: tick(), attributes: { [KIND]: "AGENT", source: "ToolCallingAgent", "input.value": "Weather in Paris?", "output.value": j({ role: "assistant", text: "It is 18°C in Paris." }) } }, (main) => {
      event(tracer, "agent.toolCalling.start", 1, { [KIND]: "AGENT", iteration: 1 }, () => {
        chatModelCall(tracer, 1, "Weather in Paris?", { toolCall: j([{ type: "tool-call", toolName: "get_weather", input: { city: "Paris" } }]) }, [20, 6]);
        event(tracer, "tool.custom.get_weather.start", 1, { [KIND]: "TOOL", "tool.parameters": j({ city: "Paris" }) });
        event(tracer, "tool.custom.get_weather.success", 1, { [KIND]: "TOOL", "output.value": j({ temperature: 18 }) });
        event(tracer, "tool.custom.get_weather.finish", 1, { [KIND]: "TOOL" });
        chatModelCall(tracer, 2, "Weather in Paris?", { text: "It is 18°C in Paris." }, [40, 9]);
      });
      event(tracer, "agent.toolCalling.success", 1, { [KIND]: "AGENT", "output.value": j({ role: "assistant", text: "It is 18°C in Paris." }) });
      main.end(tick());
    });
    expect((await flush()).ok).toBe(true);
    const t = traceNamed(bridge.dev, "beeai-framework-main");
    expect(outline(t)).toEqual(["agent beeai-framework-main", "  llm backend.openai.chat", "  tool get_weather", "  llm backend.openai.chat"]);
    const llms = t.spans.filter((s) => s.type === "llm");
    expect(llms[0]).toMatchObject({ model: "gpt-4o-mini", inputTokenCount: 20, outputTokenCount: 6, input: [{ role: "user", content: "Weather in Paris?" }] });
    expect(llms[1]).toMatchObject({ model: "gpt-4o-mini", inputTokenCount: 40, outputTokenCount: 9, output: "It is 18°C in Paris." });
    // OpenInference reads output.value as text unless its mime type says JSON (BeeAI gives a tool's none).
    expect(t.spans.find((s) => s.type === "tool")).toMatchObject({ input: { city: "Paris" }, output: '{"temperature":18}' });
  });
});
