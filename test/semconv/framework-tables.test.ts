import type { Attributes } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { interpret } from "../../src/semconv/interpret.js";

// Issue 43: the frameworks that speak their own dialect, one table each. Each shape is recorded
// from the framework's own source, cited above it.
const span = (name: string, attributes: Attributes) => ({ name, attributes, events: [], logs: [] });
const j = (v: unknown) => JSON.stringify(v);

// firebase/genkit js/core/src/tracing/instrumentation.ts and js/core/src/action.ts: every action
// runs in a span with `genkit:type` ("action", "util" for generate's helpers, "flowStep" for
// run()), `genkit:metadata:subtype` (the action type: "flow", "model", "tool" ...), `genkit:name`,
// `genkit:path`, `genkit:input` / `genkit:output` (JSON of the action's input and result) and
// `genkit:state`. A model action's input is a GenerateRequest and its output a GenerateResponse
// (js/ai/src/model-types.ts): messages with roles user/model/tool and parts `{text}`,
// `{toolRequest: {name, ref, input}}`, `{toolResponse: {name, ref, output}}`; usage in `usage`.
describe("Firebase Genkit (genkit:* attributes)", () => {
  const request = {
    messages: [
      { role: "system", content: [{ text: "You answer weather questions." }] },
      { role: "user", content: [{ text: "Weather in Paris?" }] },
      { role: "model", content: [{ toolRequest: { name: "getWeather", ref: "r1", input: { city: "Paris" } } }] },
      { role: "tool", content: [{ toolResponse: { name: "getWeather", ref: "r1", output: { temperature: 18 } } }] },
    ],
    config: {},
    tools: [{ name: "getWeather", description: "Weather of a city" }],
  };
  it("a model action is an llm span: model and provider from its name, messages (tool call and result linked), output and tokens from its request and response", () => {
    const mapped = interpret(
      span("googleai/gemini-2.5-flash", {
        "genkit:type": "action",
        "genkit:metadata:subtype": "model",
        "genkit:name": "googleai/gemini-2.5-flash",
        "genkit:path": "/{weatherFlow,t:flow}/{generate,t:util}/{googleai/gemini-2.5-flash,t:action,s:model}",
        "genkit:input": j(request),
        "genkit:output": j({ message: { role: "model", content: [{ text: "It is 18°C in Paris." }] }, finishReason: "stop", usage: { inputTokens: 31, outputTokens: 9, totalTokens: 40 } }),
        "genkit:state": "success",
      }),
    );
    expect(mapped).toMatchObject({
      type: "llm",
      integration: "Genkit",
      input: [
        { role: "system", content: "You answer weather questions." },
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", tool_calls: [{ id: "r1", name: "getWeather", arguments: { city: "Paris" } }] },
        { role: "tool", content: '{"temperature":18}', tool_call_id: "r1" },
      ],
      output: "It is 18°C in Paris.",
      fields: { model: "gemini-2.5-flash", provider: "googleai", inputTokenCount: 31, outputTokenCount: 9 },
    });
  });

  it("a model action that asks for a tool has it as toolsCalled", () => {
    const mapped = interpret(
      span("googleai/gemini-2.5-flash", {
        "genkit:type": "action",
        "genkit:metadata:subtype": "model",
        "genkit:name": "googleai/gemini-2.5-flash",
        "genkit:input": j({ messages: [request.messages[1]] }),
        "genkit:output": j({ message: { role: "model", content: [{ toolRequest: { name: "getWeather", ref: "r1", input: { city: "Paris" } } }] }, finishReason: "stop" }),
      }),
    );
    expect(mapped).toMatchObject({ type: "llm", fields: { toolsCalled: [{ name: "getWeather", inputParameters: { city: "Paris" } }] } });
  });

  it("a tool action is a tool span with its input and output; a flow a span with its input and output; generate's own util span a base span with the conversation and the answer, other util spans left out", () => {
    expect(interpret(span("getWeather", { "genkit:type": "action", "genkit:metadata:subtype": "tool", "genkit:name": "getWeather", "genkit:input": j({ city: "Paris" }), "genkit:output": j({ temperature: 18 }) }))).toMatchObject({
      type: "tool",
      name: "getWeather",
      input: { city: "Paris" },
      output: { temperature: 18 },
    });
    expect(interpret(span("weatherFlow", { "genkit:type": "action", "genkit:metadata:subtype": "flow", "genkit:name": "weatherFlow", "genkit:isRoot": true, "genkit:input": j("Paris"), "genkit:output": j("It is 18°C in Paris.") }))).toMatchObject({
      type: "base",
      input: "Paris",
      output: "It is 18°C in Paris.",
    });
    // generate's own span is kept (the root when an app calls generate outside a flow), as a base
    // span with the conversation asked and the answer given; other util spans are left out.
    expect(interpret(span("generate", { "genkit:type": "util", "genkit:name": "generate", "genkit:input": j(request), "genkit:output": j({ message: { role: "model", content: [{ text: "It is 18°C in Paris." }] } }) }))).toMatchObject({
      type: "base",
      input: expect.arrayContaining([{ role: "user", content: "Weather in Paris?" }]),
      output: "It is 18°C in Paris.",
    });
    expect(interpret(span("resolve", { "genkit:type": "util", "genkit:name": "resolve", "genkit:input": j(request) }))).toBeUndefined();
  });
});

// VoltAgent/voltagent packages/core/src/agent/open-telemetry/trace-context.ts and
// packages/core/src/agent/agent.ts (2.x): the agent's root span has `entity.type: "agent"`,
// `entity.name`, `input`, `output`, `agent.instructions`, `ai.model.name`, `usage.*`; its children
// inherit those and add `span.type` ("llm", "tool", "memory" ...): an llm span
// (`llm:<operation>`) `llm.model`, `llm.provider`, `llm.messages` (JSON `{role, content}`),
// `llm.usage.prompt_tokens` / `completion_tokens`; a tool span (`tool.execution:<name>`)
// `tool.name`, `tool.call.id`, `tool.description`, `input` and `output` (JSON).
describe("VoltAgent (entity.*, span.type, llm.*, usage.*)", () => {
  const common = { "entity.type": "agent", "entity.id": "weather-agent", "entity.name": "Weather Agent", "operation.id": "op1" };
  it("the agent's root span is an agent span with its input, output and no tokens of its own", () => {
    const mapped = interpret(span("streamText", { ...common, "agent.state": "completed", input: "Weather in Paris?", output: "It is 18°C in Paris.", "ai.model.name": "gpt-4o-mini", "usage.prompt_tokens": 60, "usage.completion_tokens": 15 }));
    expect(mapped).toMatchObject({ type: "agent", name: "Weather Agent", integration: "VoltAgent", input: "Weather in Paris?", output: "It is 18°C in Paris." });
    expect(mapped!.fields.inputTokenCount).toBeUndefined();
  });

  it("an llm span has its model, provider, messages and tokens", () => {
    const mapped = interpret(
      span("llm:streamText", {
        ...common,
        "span.type": "llm",
        "llm.operation": "streamText",
        "llm.model": "openai/gpt-4o-mini",
        "llm.provider": "openai",
        "llm.messages": j([
          { role: "system", content: "You answer weather questions." },
          { role: "user", content: "Weather in Paris?" },
        ]),
        "llm.usage.prompt_tokens": 30,
        "llm.usage.completion_tokens": 7,
        "llm.finish_reason": "stop",
      }),
    );
    expect(mapped).toMatchObject({
      type: "llm",
      input: [
        { role: "system", content: "You answer weather questions." },
        { role: "user", content: "Weather in Paris?" },
      ],
      fields: { model: "openai/gpt-4o-mini", provider: "openai", inputTokenCount: 30, outputTokenCount: 7 },
    });
  });

  it("a tool span has its name, arguments and result; memory spans are left out", () => {
    expect(interpret(span("tool.execution:getWeather", { ...common, "span.type": "tool", "tool.name": "getWeather", "tool.call.id": "c1", "tool.description": "Weather of a city", input: j({ city: "Paris" }), output: j({ temperature: 18 }) }))).toMatchObject({
      type: "tool",
      name: "getWeather",
      input: { city: "Paris" },
      output: { temperature: 18 },
      fields: { description: "Weather of a city" },
    });
    expect(interpret(span("memory.read", { ...common, "span.type": "memory" }))).toBeUndefined();
  });
});

// google/adk-js core/src/telemetry/tracing.ts (traceCallLlm, traceToolCall): the model call's
// span has `gen_ai.system: "gcp.vertex.agent"`, `gen_ai.request.model`, tokens, and the
// LlmRequest / LlmResponse as JSON in `gcp.vertex.agent.llm_request` / `llm_response` (Gemini
// `Content`s: roles user/model, parts `{text}`, `{functionCall}`, `{functionResponse}`); a tool's
// span `execute_tool` with `gcp.vertex.agent.tool_call_args` / `tool_response` (and `{}` for the llm ones).
describe("Google ADK (gcp.vertex.agent.*)", () => {
  const request = {
    model: "gemini-2.5-flash",
    contents: [
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      { role: "model", parts: [{ functionCall: { id: "f1", name: "get_weather", args: { city: "Paris" } } }] },
      { role: "user", parts: [{ functionResponse: { id: "f1", name: "get_weather", response: { temperature: 18 } } }] },
    ],
    config: { systemInstruction: "You answer weather questions." },
  };
  it("a model call's span has its messages (system instruction first, call and result linked), output, model and tokens, and no provider from gen_ai.system", () => {
    const mapped = interpret(
      span("call_llm", {
        "gen_ai.system": "gcp.vertex.agent",
        "gen_ai.request.model": "gemini-2.5-flash",
        "gcp.vertex.agent.llm_request": j(request),
        "gcp.vertex.agent.llm_response": j({ content: { role: "model", parts: [{ text: "It is 18°C in Paris." }] }, usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 8 } }),
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 8,
      }),
    );
    expect(mapped).toMatchObject({
      type: "llm",
      integration: "Google ADK",
      input: [
        { role: "system", content: "You answer weather questions." },
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", tool_calls: [{ id: "f1", name: "get_weather", arguments: { city: "Paris" } }] },
        { role: "user", content: '{"temperature":18}', tool_call_id: "f1" },
      ],
      output: "It is 18°C in Paris.",
      fields: { model: "gemini-2.5-flash", inputTokenCount: 40, outputTokenCount: 8 },
    });
    expect(mapped!.fields.provider).toBeUndefined();
  });

  it("a model call that asks for a tool has it as toolsCalled; a tool's span has its arguments and response", () => {
    const call = interpret(
      span("call_llm", {
        "gen_ai.system": "gcp.vertex.agent",
        "gen_ai.request.model": "gemini-2.5-flash",
        "gcp.vertex.agent.llm_request": j({ ...request, contents: [request.contents[0]] }),
        "gcp.vertex.agent.llm_response": j({ content: { role: "model", parts: [{ functionCall: { id: "f1", name: "get_weather", args: { city: "Paris" } } }] } }),
      }),
    );
    expect(call).toMatchObject({ type: "llm", fields: { toolsCalled: [{ name: "get_weather", inputParameters: { city: "Paris" } }] } });
    const tool = interpret(
      span("execute_tool get_weather", {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.type": "FunctionTool",
        "gcp.vertex.agent.llm_request": "{}",
        "gcp.vertex.agent.llm_response": "{}",
        "gcp.vertex.agent.tool_call_args": j({ city: "Paris" }),
        "gen_ai.tool.call.id": "f1",
        "gcp.vertex.agent.tool_response": j({ temperature: 18 }),
      }),
    );
    expect(tool).toMatchObject({ type: "tool", name: "get_weather", input: { city: "Paris" }, output: { temperature: 18 } });
  });
});
