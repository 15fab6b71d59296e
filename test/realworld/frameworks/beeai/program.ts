// BeeAI Framework for TypeScript traced by OpenInference: the official example of
// @arizeai/openinference-instrumentation-beeai, `js/packages/openinference-instrumentation-beeai/examples/run-toolcalling-agent.ts`
// from github.com/Arize-ai/openinference at commit 1fe497f1d9f45a07eee55d97fe185e020560f9c7
// (main, 2026-08-21; the file last changed in 802ef5341e62), Apache-2.0 (LICENSE here: that
// package's). Copied with four changes, each marked `// evaltrace:` below, to run offline:
// - its first line, `import "./instrumentation";` (a NodeTracerProvider exporting to Phoenix and
//   the console, then `manuallyInstrument(beeaiFramework)`), is left out: the test's bridge setup
//   preloads the same steps with evaltrace's span processor instead (telemetry.mjs), and the
//   untraced runs have none;
// - the model: `new OllamaChatModel("llama3.1")` (a local Ollama server; we have no fake of its
//   API) is BeeAI's OpenAI adapter, `new OpenAIChatModel("gpt-4o-mini")`, pointed at the fake
//   OpenAI by BeeAI's own OPENAI_API_ENDPOINT / OPENAI_API_KEY variables;
// - the tools: DuckDuckGoSearchTool and OpenMeteoTool query the internet (DuckDuckGo,
//   open-meteo.com); BeeAI's own CalculatorTool runs locally;
// - the prompt, "How are you?", names the tools to call (the fake model calls the tools a prompt
//   names: the agent makes the model call a tool every turn, its final_answer tool included).
// The rest is the example as written.
import { OpenAIChatModel } from "beeai-framework/adapters/openai/backend/chat"; // evaltrace: was OllamaChatModel from .../ollama/backend/chat
import { ToolCallingAgent } from "beeai-framework/agents/toolCalling/agent";
import { TokenMemory } from "beeai-framework/memory/tokenMemory";
import { CalculatorTool } from "beeai-framework/tools/calculator"; // evaltrace: was DuckDuckGoSearchTool and OpenMeteoTool

const llm = new OpenAIChatModel("gpt-4o-mini"); // evaltrace: was new OllamaChatModel("llama3.1")
const agent = new ToolCallingAgent({
  llm,
  memory: new TokenMemory(),
  tools: [
    new CalculatorTool(), // evaltrace: was new DuckDuckGoSearchTool(), new OpenMeteoTool() // weather tool
  ],
});

async function main() {
  const response = await agent.run({ prompt: "How are you? Use Calculator, then final_answer." }); // evaltrace: was "How are you?"
  // eslint-disable-next-line no-console
  console.log(`Agent 🤖 : `, response.result.text);
}

// eslint-disable-next-line no-console
main().catch(console.error);
