// Google ADK for TypeScript, its official sample `dev/samples/agent_with_tool.ts` (an LlmAgent
// with two FunctionTools, on gemini-2.5-flash) from github.com/google/adk-js at commit
// e05926a612a0d304f5c7cf5c946e16cd19f92a16 (main, 2025-12-12), copied byte for byte beside this
// file as agent_with_tool.ts (Apache-2.0: LICENSE here). The sample only exports `rootAgent`: it
// is run by ADK's CLI (`npx adk run`). This file is that runner, cut to what the CLI does with an
// input file (dev/src/cli/cli_run.ts `runFromInputFile`, same commit): a Runner over in-memory
// services, one query, each event's text printed as `[author]: text`. The query is ours.
// Offline: GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL (read by @google/genai, which ADK's Gemini
// model uses) point it at the fake Gemini API; nothing in the sample is changed.
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService, Runner } from "@google/adk";
import { rootAgent } from "./agent_with_tool.js";

const appName = rootAgent.name;
const userId = "test_user";
const sessionService = new InMemorySessionService();
const session = await sessionService.createSession({ appName, userId, state: {} });
const runner = new Runner({ appName, agent: rootAgent, artifactService: new InMemoryArtifactService(), sessionService, memoryService: new InMemoryMemoryService() });

const query = "What is the weather in New York? Use get_weather.";
console.log(`[user]: ${query}`);
for await (const event of runner.runAsync({ userId: session.userId, sessionId: session.id, newMessage: { role: "user", parts: [{ text: query }] } })) {
  if (event.content && event.content.parts) {
    const text = event.content.parts.map((part) => part.text || "").join("");
    if (text) console.log(`[${event.author}]: ${text}`);
  }
}
