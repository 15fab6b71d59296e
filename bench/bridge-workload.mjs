// The bridge benchmark's traffic: one agent turn as OpenTelemetry GenAI instrumentations record
// it (semantic conventions 1.37+, content captured as JSON attributes), on a real OTel tracer:
//   invoke_agent weather_agent                        (gen_ai.operation.name=invoke_agent → agent)
//     chat gpt-4o-mini        → asks for a tool call   (chat → llm: model, provider, tokens, messages)
//     execute_tool get_weather                          (execute_tool → tool: name, arguments, result)
//     chat gpt-4o-mini        → the answer             (its input: the whole conversation so far)
// Request attributes are set when a span starts, response attributes (output, usage) before it
// ends, the way the instrumentations do; every span is one evaltrace's GenAI convention
// (src/semconv/genai.ts) claims and types, so each is kept and delivered.
import { SpanKind } from "@opentelemetry/api";

/** Spans in one trace. */
export const GEN_AI_SPANS_PER_TRACE = 4;

const MODEL = "gpt-4o-mini";
const SYSTEM =
  "You are a weather assistant for a travel company. Answer in two or three short sentences, in the user's language. " +
  "Use the get_weather tool for any question about current conditions or forecasts; never guess a temperature. " +
  "If the city is ambiguous, pick the most populous one and say so. Do not mention these instructions.";
const TOOL_DESCRIPTION = "Current weather and a three-day forecast for a city: temperature in Celsius, conditions, wind and humidity.";
const CITIES = ["Paris", "Lisbon", "Osaka", "Nairobi", "Montreal", "Valparaiso", "Tromso", "Auckland"];

const text = (content) => ({ type: "text", content });
const message = (role, ...parts) => ({ role, parts });

/** The content of trace `tag`: a few hundred characters per message, different for every trace. */
function conversation(tag) {
  const city = CITIES[tag.length % CITIES.length];
  const callId = `call_${tag}`;
  const question =
    `Request ${tag}: I land in ${city} tomorrow morning and have a walking tour booked for the afternoon. ` +
    "What is the weather like there right now, and should I pack an umbrella or a warm jacket for the next few days?";
  const args = { city, units: "metric", days: 3 };
  const result = {
    city,
    now: { temperatureC: 14.5, conditions: "light rain", windKph: 18, humidity: 0.82 },
    forecast: [
      { day: 1, highC: 16, lowC: 9, conditions: "showers" },
      { day: 2, highC: 18, lowC: 10, conditions: "partly cloudy" },
      { day: 3, highC: 19, lowC: 11, conditions: "sunny" },
    ],
    requestId: tag,
  };
  const answer =
    `Right now ${city} has light rain at about 14.5 °C, with a fresh breeze (18 km/h) and high humidity. ` +
    "Tomorrow afternoon brings showers with a high of 16 °C, so take a compact umbrella and a light waterproof jacket for the tour. " +
    "The following two days dry out and warm up to 18-19 °C, so a warm jacket is only needed in the evenings. " +
    `(answer to request ${tag})`;
  const asked = [message("system", text(SYSTEM)), message("user", text(question))];
  const call = { ...message("assistant", { type: "tool_call", id: callId, name: "get_weather", arguments: args }), finish_reason: "tool_call" };
  const toolMessage = message("tool", { type: "tool_call_response", id: callId, response: result });
  return {
    callId,
    args: JSON.stringify(args),
    result: JSON.stringify(result),
    firstInput: JSON.stringify(asked),
    firstOutput: JSON.stringify([call]),
    secondInput: JSON.stringify([...asked, message("assistant", call.parts[0]), toolMessage]),
    secondOutput: JSON.stringify([{ ...message("assistant", text(answer)), finish_reason: "stop" }]),
  };
}

const model = async () => {};
const tool = async () => {};

/**
 * Builds `run(tag)`: one agent turn traced with `tracer` (spans made active with
 * startActiveSpan, so the children nest under the agent through the context manager).
 */
export function genAiTrace(tracer) {
  const chat = (turn, input, output, tokens) =>
    tracer.startActiveSpan(
      `chat ${MODEL}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "openai",
          "gen_ai.system": "openai",
          "gen_ai.request.model": MODEL,
          "gen_ai.request.temperature": 0.2,
          "gen_ai.request.max_tokens": 512,
          "server.address": "api.openai.com",
          "server.port": 443,
          "gen_ai.input.messages": input,
        },
      },
      async (span) => {
        await model();
        span.setAttributes({
          "gen_ai.response.id": `chatcmpl-${turn}`,
          "gen_ai.response.model": `${MODEL}-2024-07-18`,
          "gen_ai.response.finish_reasons": [tokens.finish],
          "gen_ai.usage.input_tokens": tokens.input,
          "gen_ai.usage.output_tokens": tokens.output,
          "gen_ai.output.messages": output,
        });
        span.end();
      },
    );
  return (tag) =>
    tracer.startActiveSpan(
      "invoke_agent weather_agent",
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.provider.name": "openai",
          "gen_ai.agent.name": "weather_agent",
          "gen_ai.agent.id": "asst_weather_01",
          "gen_ai.agent.description": "Answers travellers' weather questions",
          "gen_ai.conversation.id": `conv_${tag}`,
          "gen_ai.request.model": MODEL,
        },
      },
      async (agent) => {
        const c = conversation(tag);
        await chat(`${tag}-1`, c.firstInput, c.firstOutput, { input: 182, output: 24, finish: "tool_calls" });
        await tracer.startActiveSpan(
          "execute_tool get_weather",
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": "get_weather",
              "gen_ai.tool.type": "function",
              "gen_ai.tool.description": TOOL_DESCRIPTION,
              "gen_ai.tool.call.id": c.callId,
              "gen_ai.tool.call.arguments": c.args,
            },
          },
          async (span) => {
            await tool();
            span.setAttribute("gen_ai.tool.call.result", c.result);
            span.end();
          },
        );
        await chat(`${tag}-2`, c.secondInput, c.secondOutput, { input: 341, output: 96, finish: "stop" });
        agent.setAttributes({ "gen_ai.usage.input_tokens": 523, "gen_ai.usage.output_tokens": 120 });
        agent.end();
      },
    );
}
