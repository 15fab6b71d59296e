// VoltAgent's "Tools & Toolkits" guide, from VoltAgent/voltagent website/docs/tools/overview.md at
// 3377f6d1fd05d86617f54628d785eef7c9c0a607 (MIT): its first block ("Defining a Single Tool"),
// then the call the guide's next block makes (`agent.generateText("What's the weather in
// Paris?")`, without its context options) and the reply printed. Added, and why (SOURCE.md): the
// first block only builds the agent; the call and the print make it a program that runs. The
// model is the guide's "openai/gpt-4o-mini", which @ai-sdk/openai sends to OPENAI_BASE_URL
// (the fake OpenAI server, offline): nothing else changed.
import { Agent, createTool } from "@voltagent/core";
import { z } from "zod";

// Define a simple weather tool
const getWeatherTool = createTool({
  name: "get_weather",
  description: "Fetches the current weather for a given location.",
  parameters: z.object({
    location: z.string().describe("The city and state, e.g., San Francisco, CA"),
  }),
  execute: async ({ location }) => {
    // In a real scenario, you would call a weather API here
    console.log(`Fetching weather for ${location}...`);
    if (location.toLowerCase().includes("tokyo")) {
      return { temperature: "15°C", condition: "Cloudy" };
    }
    return { temperature: "22°C", condition: "Sunny" };
  },
});

const agent = new Agent({
  name: "WeatherAgent",
  instructions: "An agent that can fetch weather information.",
  model: "openai/gpt-4o-mini",
  tools: [getWeatherTool], // Add the tool to the agent
});

// Now the agent can use the 'get_weather' tool when asked about weather.

const response = await agent.generateText("What's the weather in Paris?");
console.log(response.text);
