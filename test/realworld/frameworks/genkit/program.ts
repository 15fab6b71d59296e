// Firebase Genkit's tool-calling guide (JS), from genkit-ai/docsite
// src/content/docs/docs/tool-calling.mdx at 0344b781417c0dd49e236e1a2e0bd26bdd09480b (Apache-2.0):
// its "Defining tools" block followed by its "Using generate()" block, as the guide runs them.
// Changed, and why (SOURCE.md): `googleAI()` is given `baseUrl` from GOOGLE_GEMINI_BASE_URL (the
// plugin calls the Gemini API with its own fetch and reads no base-URL variable: this points it
// at the fake Gemini server, offline), and the reply is printed (`console.log(response.text)`:
// the guide leaves `response` for the reader to use).
import { genkit, z } from 'genkit';
import { googleAI } from '@genkit-ai/google-genai';

const ai = genkit({
  plugins: [googleAI({ baseUrl: process.env.GOOGLE_GEMINI_BASE_URL })],
  model: googleAI.model('gemini-flash-latest'),
});

const getWeather = ai.defineTool(
  {
    name: 'getWeather',
    description: 'Gets the current weather in a given location',
    inputSchema: z.object({
      location: z
        .string()
        .describe('The location to get the current weather for'),
    }),
    outputSchema: z.string(),
  },
  async (input) => {
    // Here, we would typically make an API call or database query. For this
    // example, we just return a fixed value.
    return `The current weather in ${input.location} is 63°F and sunny.`;
  },
);

const response = await ai.generate({
  prompt: 'What is the weather in Baltimore?',
  tools: [getWeather],
});

console.log(response.text);
