import { describe, expect, it } from "vitest";
import { interpret } from "../../src/semconv/interpret.js";

// Issue 31: the current GenAI conventions' `gen_ai.client.inference.operation.details` record
// holds a call's messages in its attributes (as @opentelemetry/instrumentation-openai emits for
// the Responses API).
const details = "gen_ai.client.inference.operation.details";
const span = (logs: { eventName: string; body: unknown }[], extra: Record<string, string> = {}) => ({
  name: "chat gpt-4o-mini",
  attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", ...extra },
  events: [],
  logs,
});

describe("GenAI operation-details log records", () => {
  it("reads input and output messages from details records, streamed output items joined in order", () => {
    const mapped = interpret(
      span(
        [
          { eventName: details, body: { "gen_ai.input.messages": [{ role: "system", parts: [{ type: "text", content: "Be brief." }] }, { role: "user", parts: [{ type: "text", content: "Hi" }] }] } },
          { eventName: details, body: { "gen_ai.output.messages": [{ role: "assistant", parts: [{ type: "text", content: "Hello" }] }] } },
          { eventName: details, body: { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", name: "lookup_order", arguments: '{"orderId":"A-1"}' }] }]) } },
        ],
        { "gen_ai.system_instructions": "Be brief." },
      ),
    );
    expect(mapped).toMatchObject({
      type: "llm",
      input: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
      fields: { toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1" } }] },
    });
    expect(String(mapped!.output)).toContain("Hello");
  });

  it("leaves messages on the span itself first, and records of other names alone", () => {
    const mapped = interpret(span([{ eventName: details, body: { "gen_ai.output.messages": [{ role: "assistant", parts: [{ type: "text", content: "from the record" }] }] } }], { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "from the span" }] }]) }));
    expect(mapped!.output).toBe("from the span");
    expect(interpret(span([{ eventName: "gen_ai.other", body: { "gen_ai.output.messages": [{ role: "assistant", content: "x" }] } }]))!.output).toBeUndefined();
  });
});
