// TanStack AI's OpenTelemetry guide, from TanStack/ai docs/advanced/otel.md at
// d3aa104932442bfb0e0268af1c8240a00fe51aa9 (MIT): its "Setup" block, a `chat()` with
// `otelMiddleware`, given the tool of the OpenAI adapter guide (docs/adapters/openai.md, same
// commit, its "Tools" block: `get_weather`) and `captureContent: true` (the otel guide's "Privacy"
// section: without it no prompt or reply is recorded), and the result printed (SOURCE.md: the
// setup block alone offers no tool). `openaiText` reads OPENAI_API_KEY and OPENAI_BASE_URL (the
// fake OpenAI server, which calls the tool offered first, then answers).
import { chat, toolDefinition } from '@tanstack/ai'
import { otelMiddleware } from '@tanstack/ai/middlewares/otel'
import { openaiText } from '@tanstack/ai-openai'
import { trace, metrics } from '@opentelemetry/api'
import { z } from 'zod'

const getWeatherDef = toolDefinition({
  name: "get_weather",
  description: "Get the current weather",
  inputSchema: z.object({
    location: z.string(),
  }),
});

const getWeather = getWeatherDef.server(async ({ location }) => {
  // Fetch weather data
  return { temperature: 72, conditions: "sunny" };
});

const otel = otelMiddleware({
  tracer: trace.getTracer('my-app'),
  meter: metrics.getMeter('my-app'),
  captureContent: true,
})

const result = await chat({
  adapter: openaiText('gpt-5.5'),
  messages: [{ role: 'user', content: 'hi' }],
  tools: [getWeather],
  middleware: [otel],
  stream: false,
})

console.log(result)
