/** The libraries zero-code instrumentation knows, by the name `instrument()` and the environment use. */
export const LIBRARIES = ["openai", "anthropic", "google-genai", "openai-agents", "langchain", "llamaindex", "mcp", "ai"] as const;

/** A library zero-code instrumentation can patch: `openai`, `anthropic`, `google-genai`, `openai-agents`, `langchain`, `llamaindex`, `mcp` or `ai` (the Vercel AI SDK). */
export type LibraryName = (typeof LIBRARIES)[number];

/** Whether `name` is one of {@link LIBRARIES}. */
export function isLibraryName(name: string): name is LibraryName {
  return (LIBRARIES as readonly string[]).includes(name);
}
