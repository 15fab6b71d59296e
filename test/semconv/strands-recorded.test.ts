import type { Attributes } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { interpret } from "../../src/semconv/interpret.js";
import type { FinishedSpan } from "../../src/semconv/types.js";

// Issue 43: what the real Strands Agents (TypeScript, @strands-agents/sdk 1.19.0, run by
// test/realworld/frameworks/strands.test.ts on Node 22) emits with
// OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental that the shapes copied from its source
// (test/semconv/genai-frameworks.test.ts) did not have: the system prompt in an operation.details
// span event of its own (dist/src/telemetry/tracer.js `_addSystemPromptEvent`), and a tool's
// result in `gen_ai.tool.call.result` as the JSON of its content blocks (`endToolCallSpan`).
// Here on Node 20 too.

type Event = { name: string; attributes?: Attributes };
const span = (name: string, attributes: Attributes, events: Event[] = []): FinishedSpan => ({ name, attributes, events, logs: [] });
const j = (v: unknown) => JSON.stringify(v);
const details = "gen_ai.client.inference.operation.details";
const common = { "gen_ai.system": "strands-agents", "gen_ai.event.start_time": "2026-01-01T00:00:00.000Z" };

describe("Strands Agents 1.19.0 gen_ai_latest_experimental, as the real SDK emits it", () => {
  it("a chat span's system prompt, in an operation.details event of its own, is the first message of its input", () => {
    const mapped = interpret(
      span("chat", { ...common, "gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet" }, [
        { name: details, attributes: { "gen_ai.input.messages": j([{ role: "user", parts: [{ type: "text", content: "What is the weather in Seattle?" }] }]) } },
        { name: details, attributes: { "gen_ai.system_instructions": j([{ type: "text", content: "You are a weather assistant." }]) } },
        { name: details, attributes: { "gen_ai.output.messages": j([{ role: "assistant", parts: [{ type: "text", content: "Sunny." }], finish_reason: "end_turn" }]) } },
      ]),
    );
    expect(mapped).toMatchObject({
      type: "llm",
      input: [
        { role: "system", content: "You are a weather assistant." },
        { role: "user", content: "What is the weather in Seattle?" },
      ],
      output: "Sunny.",
    });
  });

  it("a tool span's gen_ai.tool.call.result (the JSON of its text blocks) is its result as text, as in Strands' other modes", () => {
    const mapped = interpret(
      span("execute_tool get_weather", {
        ...common,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "t1",
        "gen_ai.tool.call.arguments": j({ location: "Seattle" }),
        "gen_ai.tool.status": "success",
        "gen_ai.tool.call.result": j([{ text: "72°F and sunny." }]),
      }),
    );
    expect(mapped).toMatchObject({ type: "tool", input: { location: "Seattle" }, output: "72°F and sunny." });
  });
});
