// The app's turn in the bridge benchmark (bench/bridge-child.cjs, bench/bridge-replay.cjs): a
// question, the tool call the model asks for (get_weather), its result, the answer: two
// openai chat calls, one span each under an instrumentation. And the fake server's answer text.
"use strict";

/** The text of every answer: the size of a short real reply. */
const ANSWER =
  "Right now it is light rain at about 14.5 °C, with a fresh breeze (18 km/h) and high humidity. " +
  "Tomorrow afternoon brings showers with a high of 16 °C, so take a compact umbrella and a light waterproof jacket for the tour. " +
  "The following two days dry out and warm up to 18-19 °C, so a warm jacket is only needed in the evenings.";

/** Spans in one turn: two chat calls. */
const SPANS_PER_TURN = 2;

const MODEL = "gpt-4o-mini";
const SYSTEM =
  "You are a weather assistant for a travel company. Answer in two or three short sentences, in the user's language. " +
  "Use the get_weather tool for any question about current conditions or forecasts; never guess a temperature. " +
  "If the city is ambiguous, pick the most populous one and say so. Do not mention these instructions.";
const TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather and a three-day forecast for a city: temperature in Celsius, conditions, wind and humidity.",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, units: { type: "string", enum: ["metric", "imperial"] }, days: { type: "integer" } },
        required: ["city", "units", "days"],
      },
    },
  },
];
const CITIES = ["Paris", "Lisbon", "Osaka", "Nairobi", "Montreal", "Valparaiso", "Tromso", "Auckland"];

/** One turn of the app: the question, the tool call the model asks for, its result, the answer. */
function turnOf(client) {
  return async (tag) => {
    const city = CITIES[tag.length % CITIES.length];
    const messages = [
      { role: "system", content: SYSTEM },
      {
        role: "user",
        content:
          `Request ${tag}: I land in ${city} tomorrow morning and have a walking tour booked for the afternoon. ` +
          "What is the weather like there right now (get_weather), and should I pack an umbrella or a warm jacket?",
      },
    ];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS, temperature: 0.2, max_tokens: 512 });
    const asked = first.choices[0].message;
    const call = asked.tool_calls?.[0];
    if (!call) throw new Error(`the fake did not call the tool: ${JSON.stringify(asked).slice(0, 200)}`);
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
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [...messages, asked, { role: "tool", tool_call_id: call.id, content: JSON.stringify(result) }],
      tools: TOOLS,
      temperature: 0.2,
      max_tokens: 512,
    });
    return answer.choices[0].message.content;
  };
}

module.exports = { ANSWER, SPANS_PER_TURN, turnOf };
