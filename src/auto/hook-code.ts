import type { LibraryHook } from "./instrumentation.js";
import type { LibraryName } from "./libraries.js";
import { loadOwnEntry } from "./load.js";

/** Each library's hook code: the package's own CommonJS entry that carries it (`auto-hook-<library>.cjs`, built from `hooks/<file>.ts`) and its export. */
export const HOOK_CODE: Readonly<Record<LibraryName, { entry: string; exported: string }>> = {
  openai: { entry: "auto-hook-openai", exported: "openaiHook" },
  anthropic: { entry: "auto-hook-anthropic", exported: "anthropicHook" },
  "google-genai": { entry: "auto-hook-google-genai", exported: "googleGenAIHook" },
  "openai-agents": { entry: "auto-hook-openai-agents", exported: "openaiAgentsHook" },
  langchain: { entry: "auto-hook-langchain", exported: "langchainHook" },
  mcp: { entry: "auto-hook-mcp", exported: "mcpHook" },
  ai: { entry: "auto-hook-ai", exported: "aiSdkHook" },
  bedrock: { entry: "auto-hook-bedrock", exported: "bedrockHook" },
  "claude-agent-sdk": { entry: "auto-hook-claude-agent-sdk", exported: "claudeAgentSdkHook" },
  llamaindex: { entry: "auto-hook-llamaindex", exported: "llamaindexHook" },
};

/**
 * One library's hook code (`hooks/`), loaded synchronously (`require` of its CommonJS entry, from
 * either build) when the first module it targets loads, not at set-up; undefined when it cannot
 * be loaded.
 */
export function loadHookCode(library: LibraryName): LibraryHook | undefined {
  const { entry, exported } = HOOK_CODE[library];
  const hook = loadOwnEntry<Record<string, LibraryHook | undefined>>(entry)?.[exported];
  return hook?.library === library ? hook : undefined;
}
