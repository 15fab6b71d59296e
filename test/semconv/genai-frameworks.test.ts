import type { Attributes } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { interpret } from "../../src/semconv/interpret.js";
import type { FinishedSpan } from "../../src/semconv/types.js";

// Issue 43: the GenAI spans of frameworks nobody here wrapped, as they emit them. Each shape is
// recorded from the framework's own source, cited above it.

type Event = { name: string; attributes?: Attributes };
const span = (name: string, attributes: Attributes, events: Event[] = [], childOperations?: string[]): FinishedSpan => {
  const s: FinishedSpan = { name, attributes, events, logs: [] };
  if (childOperations) s.childOperations = childOperations;
  return s;
};
const j = (v: unknown) => JSON.stringify(v);

// strands-agents/sdk-typescript src/telemetry/tracer.ts (commit 075972fb): by default one span
// event per message, `{content: JSON.stringify(message.content)}` of its content blocks
// (`textBlock`, `toolUseBlock`, `toolResultBlock`); the reply a `gen_ai.choice` event whose
// `message` is the JSON of `{text}` / `{type: "toolUse"}` blocks (`_mapContentBlocksToStableFormat`);
// `gen_ai.system` is the service name; tool spans carry their input in a `gen_ai.tool.message`
// event and their result in a `gen_ai.choice` event.
const strandsTs = {
  user: { name: "gen_ai.user.message", attributes: { content: j([{ type: "textBlock", text: "What is the weather in Paris?" }]) } },
  assistantCall: { name: "gen_ai.assistant.message", attributes: { content: j([{ type: "toolUseBlock", name: "get_weather", toolUseId: "t1", input: { city: "Paris" } }]) } },
  toolResult: { name: "gen_ai.tool.message", attributes: { content: j([{ type: "toolResultBlock", toolUseId: "t1", status: "success", content: [{ type: "textBlock", text: "18°C" }] }]) } },
};
const strandsCommon = { "gen_ai.system": "strands-agents", "gen_ai.event.start_time": "2026-01-01T00:00:00.000Z" };

describe("Strands Agents (TypeScript) default: legacy per-message span events", () => {
  it("a chat span's input is read from the JSON content blocks of its message events, its call and result linked by id", () => {
    const mapped = interpret(
      span("chat", { ...strandsCommon, "gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet", "gen_ai.usage.input_tokens": 20, "gen_ai.usage.prompt_tokens": 20, "gen_ai.usage.output_tokens": 6 }, [
        strandsTs.user,
        strandsTs.assistantCall,
        strandsTs.toolResult,
        { name: "gen_ai.choice", attributes: { finish_reason: "end_turn", message: j([{ text: "It is 18°C in Paris." }]) } },
      ]),
    );
    expect(mapped).toMatchObject({
      type: "llm",
      input: [
        { role: "user", content: "What is the weather in Paris?" },
        { role: "assistant", content: 'get_weather({"city":"Paris"})', tool_calls: [{ id: "t1", name: "get_weather", arguments: { city: "Paris" } }] },
        { role: "tool", content: "18°C", tool_call_id: "t1" },
      ],
      output: "It is 18°C in Paris.",
      fields: { inputTokenCount: 20, outputTokenCount: 6 },
    });
  });

  it("a chat span whose reply is a tool call has that call as its output and toolsCalled", () => {
    const mapped = interpret(
      span("chat", { ...strandsCommon, "gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet" }, [
        strandsTs.user,
        { name: "gen_ai.choice", attributes: { finish_reason: "tool_use", message: j([{ type: "toolUse", name: "get_weather", toolUseId: "t1", input: { city: "Paris" } }]) } },
      ]),
    );
    expect(mapped).toMatchObject({ type: "llm", output: 'get_weather({"city":"Paris"})', fields: { toolsCalled: [{ name: "get_weather", inputParameters: { city: "Paris" } }] } });
  });

  it("a tool span's arguments come from its gen_ai.tool.message event and its result from its gen_ai.choice event", () => {
    const mapped = interpret(
      span("execute_tool get_weather", { ...strandsCommon, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "t1", "gen_ai.tool.status": "success" }, [
        { name: "gen_ai.tool.message", attributes: { role: "tool", content: j({ city: "Paris" }), id: "t1" } },
        { name: "gen_ai.choice", attributes: { message: j([{ type: "textBlock", text: "18°C" }]), id: "t1" } },
      ]),
    );
    expect(mapped).toMatchObject({ type: "tool", name: "get_weather", input: { city: "Paris" }, output: "18°C" });
  });

  it("an invoke_agent span has its input, output and tools, and no tokens of its own (its model calls carry them)", () => {
    const mapped = interpret(
      span(
        "invoke_agent Strands Agents",
        { ...strandsCommon, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Strands Agents", "gen_ai.request.model": "claude-sonnet", "gen_ai.agent.tools": j(["get_weather"]), "gen_ai.usage.input_tokens": 40, "gen_ai.usage.output_tokens": 12 },
        [strandsTs.user, { name: "gen_ai.choice", attributes: { message: "It is 18°C in Paris.", finish_reason: "end_turn" } }],
      ),
    );
    expect(mapped).toMatchObject({ type: "agent", name: "Strands Agents", input: [{ role: "user", content: "What is the weather in Paris?" }], output: "It is 18°C in Paris.", fields: { availableTools: ["get_weather"] } });
    expect(mapped!.fields.inputTokenCount).toBeUndefined();
  });

  it("gen_ai.system naming the framework (strands-agents) is no provider", () => {
    const mapped = interpret(span("chat", { ...strandsCommon, "gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet" }));
    expect(mapped!.fields.provider).toBeUndefined();
  });
});

// The same file, OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental: one
// `gen_ai.client.inference.operation.details` span event with the input messages when a span
// starts and one with the output when it ends, parts in the current GenAI shape.
describe("Strands Agents (TypeScript) gen_ai_latest_experimental: operation.details span events", () => {
  const details = "gen_ai.client.inference.operation.details";
  it("a chat span reads its messages and output from operation.details span events", () => {
    const mapped = interpret(
      span("chat", { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "strands-agents", "gen_ai.request.model": "claude-sonnet" }, [
        { name: details, attributes: { "gen_ai.input.messages": j([{ role: "user", parts: [{ type: "text", content: "What is the weather in Paris?" }] }]) } },
        { name: details, attributes: { "gen_ai.output.messages": j([{ role: "assistant", parts: [{ type: "tool_call", name: "get_weather", id: "t1", arguments: { city: "Paris" } }], finish_reason: "tool_use" }]) } },
      ]),
    );
    expect(mapped).toMatchObject({ type: "llm", input: [{ role: "user", content: "What is the weather in Paris?" }], output: 'get_weather({"city":"Paris"})', fields: { toolsCalled: [{ name: "get_weather", inputParameters: { city: "Paris" } }] } });
  });

  it("a tool span's arguments and result come from its tool_call and tool_call_response parts", () => {
    const mapped = interpret(
      span("execute_tool get_weather", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "t1" }, [
        { name: details, attributes: { "gen_ai.input.messages": j([{ role: "tool", parts: [{ type: "tool_call", name: "get_weather", id: "t1", arguments: { city: "Paris" } }] }]) } },
        { name: details, attributes: { "gen_ai.output.messages": j([{ role: "tool", parts: [{ type: "tool_call_response", id: "t1", response: [{ type: "textBlock", text: "18°C" }] }] }]) } },
      ]),
    );
    expect(mapped).toMatchObject({ type: "tool", input: { city: "Paris" }, output: "18°C" });
  });
});

// strands-agents/sdk-python src/strands/telemetry/tracer.py (`_add_event_messages`): by default
// `{content: serialize(message["content"])}` of Bedrock Converse content blocks (`{text}`,
// `{toolUse: {toolUseId, name, input}}`, `{toolResult: {toolUseId, status, content}}`).
describe("Bedrock-style content blocks (Strands Python's default events)", () => {
  it("toolUse and toolResult blocks are read as a tool call and its result, linked by toolUseId", () => {
    const mapped = interpret(
      span("chat", { "gen_ai.operation.name": "chat", "gen_ai.system": "strands-agents", "gen_ai.request.model": "us.anthropic.claude" }, [
        { name: "gen_ai.user.message", attributes: { content: j([{ text: "Weather in Paris?" }]) } },
        { name: "gen_ai.assistant.message", attributes: { content: j([{ text: "Let me check." }, { toolUse: { toolUseId: "t1", name: "get_weather", input: { city: "Paris" } } }]) } },
        { name: "gen_ai.tool.message", attributes: { content: j([{ toolResult: { toolUseId: "t1", status: "success", content: [{ text: "18°C" }] } }]) } },
        { name: "gen_ai.choice", attributes: { finish_reason: "end_turn", message: j([{ text: "18°C in Paris." }]) } },
      ]),
    );
    expect(mapped).toMatchObject({
      input: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: 'Let me check.get_weather({"city":"Paris"})', tool_calls: [{ id: "t1", name: "get_weather", arguments: { city: "Paris" } }] },
        { role: "tool", content: "18°C", tool_call_id: "t1" },
      ],
      output: "18°C in Paris.",
    });
  });
});

// TanStack/ai packages/typescript/ai/src/middlewares/otel.ts (otelMiddleware): the root
// `chat <model>` span of a chat() call has `gen_ai.system` and `gen_ai.request.model` but no
// `gen_ai.operation.name` (deliberately: it wraps several model calls), and the tokens summed
// over its iteration spans (`chat <model> #N`, operation `chat`, which carry their own); tool
// spans carry `gen_ai.tool.name` and their arguments and result as `gen_ai.input.messages` /
// `gen_ai.output.messages` of one `{role: "tool", content}` message; `langfuse.observation.*` mirrors.
describe("TanStack AI otelMiddleware", () => {
  const root = { "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 50, "gen_ai.usage.output_tokens": 14 };
  it("a span with a model but no operation around model calls (the root chat span) is no llm span: its summed tokens are not counted again", () => {
    const mapped = interpret(span("chat gpt-4o", root, [], ["chat"]));
    expect(mapped!.type).not.toBe("llm");
    expect(mapped!.fields.inputTokenCount).toBeUndefined();
  });

  it("the root chat span takes its input and its final answer from langfuse.observation.input / output", () => {
    const mapped = interpret(
      span(
        "chat gpt-4o",
        {
          ...root,
          "langfuse.observation.input": j([{ role: "user", content: "Weather in Paris?" }]),
          "langfuse.observation.output": j([{ role: "assistant", content: "It is 18°C in Paris." }]),
          "langfuse.trace.output": j([{ role: "assistant", content: "It is 18°C in Paris." }]),
        },
        [],
        ["chat"],
      ),
    );
    expect(mapped).toMatchObject({ type: "base", input: [{ role: "user", content: "Weather in Paris?" }], output: "It is 18°C in Paris." });
  });

  it("a tool span with only langfuse.observation.* (no GenAI content) reads its arguments and result from them", () => {
    const mapped = interpret(
      span("execute_tool get_weather", {
        "gen_ai.tool.name": "get_weather",
        "langfuse.observation.input": j([{ role: "tool", content: j({ city: "Paris" }) }]),
        "langfuse.observation.output": j([{ role: "tool", content: "18°C" }]),
      }),
    );
    expect(mapped).toMatchObject({ type: "tool", input: { city: "Paris" }, output: "18°C" });
  });

  it("a span with a model and no operation that wraps no model call is still an llm span", () => {
    expect(interpret(span("call_llm", { "gen_ai.request.model": "gemini-2.5-flash", "gen_ai.usage.input_tokens": 5 }))).toMatchObject({ type: "llm", fields: { inputTokenCount: 5 } });
  });

  it("a tool span without an operation reads its arguments and result from its tool messages", () => {
    const mapped = interpret(
      span("execute_tool get_weather", {
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.type": "function",
        "gen_ai.input.messages": j([{ role: "tool", content: j({ city: "Paris" }) }]),
        "gen_ai.output.messages": j([{ role: "tool", content: j({ temperature: 18 }) }]),
      }),
    );
    expect(mapped).toMatchObject({ type: "tool", input: { city: "Paris" }, output: { temperature: 18 } });
  });

  it("an iteration's gen_ai.choice event with content (no message) is its output", () => {
    const mapped = interpret(span("chat gpt-4o #1", { "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o" }, [{ name: "gen_ai.user.message", attributes: { content: "Hi" } }, { name: "gen_ai.choice", attributes: { content: "Hello!" } }]));
    expect(mapped).toMatchObject({ type: "llm", input: [{ role: "user", content: "Hi" }], output: "Hello!" });
  });
});

describe("GenAI provider", () => {
  it("gen_ai.provider.name wins over gen_ai.system", () => {
    expect(interpret(span("chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.provider.name": "anthropic", "gen_ai.system": "openai" }))!.fields.provider).toBe("anthropic");
  });

  it("gen_ai.system's well-known values are mapped to the provider they name (gcp.gemini → Gemini, aws.bedrock → Bedrock, az.ai.openai → Azure)", () => {
    const provider = (system: string) => interpret(span("chat", { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.system": system }))!.fields.provider;
    expect([provider("gcp.gemini"), provider("aws.bedrock"), provider("az.ai.openai"), provider("openai")]).toEqual(["Gemini", "Bedrock", "Azure", "openai"]);
  });

  // google/adk-js core/src/telemetry/tracing.ts (traceCallLlm): `gen_ai.system: "gcp.vertex.agent"`
  // names ADK itself, whichever API (Gemini API or Vertex AI) the model is called through.
  it("ADK's gen_ai.system (gcp.vertex.agent) is no provider: not VertexAI for a Gemini API call", () => {
    expect(interpret(span("call_llm", { "gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.5-flash" }))!.fields.provider).toBeUndefined();
  });
});

// ai (7.0) @ai-sdk/otel dist/index.js (OpenTelemetry integration): the `invoke_agent` span of
// generateText / a ToolLoopAgent has `gen_ai.input.messages`, `gen_ai.system_instructions` and,
// when it ends, `gen_ai.output.messages`.
describe("AI SDK 7 (@ai-sdk/otel) agent span", () => {
  it("an invoke_agent span has its input messages and output text", () => {
    const mapped = interpret(
      span("invoke_agent weather-agent", {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.agent.name": "weather-agent",
        "gen_ai.system_instructions": j([{ type: "text", content: "Be brief." }]),
        "gen_ai.input.messages": j([{ role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] }]),
        "gen_ai.output.messages": j([{ role: "assistant", parts: [{ type: "text", content: "18°C." }], finish_reason: "stop" }]),
        "gen_ai.usage.input_tokens": 30,
      }),
    );
    expect(mapped).toMatchObject({
      type: "agent",
      name: "weather-agent",
      input: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
      ],
      output: "18°C.",
    });
    expect(mapped!.fields.inputTokenCount).toBeUndefined();
  });
});
