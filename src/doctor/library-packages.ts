import type { LibraryName } from "../auto/libraries.js";

/** The packages whose presence means a library zero-code instruments is installed (any one of them). */
export const LIBRARY_PACKAGES: Readonly<Record<LibraryName, readonly string[]>> = {
  openai: ["openai"],
  anthropic: ["@anthropic-ai/sdk"],
  "google-genai": ["@google/genai"],
  "openai-agents": ["@openai/agents", "@openai/agents-core"],
  langchain: ["@langchain/core"],
  mcp: ["@modelcontextprotocol/sdk"],
  ai: ["ai"],
  bedrock: ["@aws-sdk/client-bedrock-runtime"],
  "claude-agent-sdk": ["@anthropic-ai/claude-agent-sdk"],
  llamaindex: ["llamaindex", "@llamaindex/core"],
};
