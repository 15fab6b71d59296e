/** The libraries zero-code instrumentation knows, by the name `instrument()` and the environment use. */
export const LIBRARIES = ["openai", "anthropic", "google-genai", "openai-agents", "langchain", "mcp", "ai", "bedrock", "claude-agent-sdk"] as const;

/** A library zero-code instrumentation can patch: `openai`, `anthropic`, `google-genai`, `openai-agents`, `langchain`, `mcp`, `ai` (the Vercel AI SDK), `bedrock` (`@aws-sdk/client-bedrock-runtime`) or `claude-agent-sdk` (the Claude Agent SDK). */
export type LibraryName = (typeof LIBRARIES)[number];

/** Whether `name` is one of {@link LIBRARIES}. */
export function isLibraryName(name: string): name is LibraryName {
  return (LIBRARIES as readonly string[]).includes(name);
}
