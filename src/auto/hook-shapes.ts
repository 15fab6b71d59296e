import type { LibraryName } from "./libraries.js";

/** The modules one library's hooks (`hooks/`) target, as data: what the set-up needs before the hook code itself is loaded. */
export interface HookShape {
  /** The package name, as `require` / `import` name it. */
  packageName: string;
  /** Versions hooked (`>=N[.N[.N]]` ranges). */
  versions: readonly string[];
  /** The hook has an `onLoad` for the package's main entry. */
  entry: boolean;
  /** The exports the main entry's hook replaces (`esm-handoff.ts`). */
  replaces?: readonly string[];
  /** Files inside the package the hook targets, and the exports each one's hook replaces. */
  files?: readonly { path: string; replaces?: readonly string[] }[];
  /** `files` are also hooked under `require` by their names (`LibraryHook.requireFilesByName`). */
  requireFilesByName?: boolean;
  /** Other packages of the same library, each hooked when its main entry loads. */
  modules?: readonly { packageName: string; versions: readonly string[]; replaces?: readonly string[] }[];
}

/**
 * What each library's hooks (`hooks/<library>.ts`) target, without their code: zero-code's
 * set-up makes every installed library's targets from this table and loads a library's hook
 * code (`hook-code.ts`) only when the first of its modules loads, so an app that imports openai
 * never loads the code of LangChain's or Bedrock's hooks. A test holds this table to the hooks.
 */
export const HOOK_SHAPES: Readonly<Record<LibraryName, HookShape>> = {
  openai: { packageName: "openai", versions: [">=4"], entry: true, files: [{ path: "openai/index.mjs" }, { path: "openai/index.js" }] },
  anthropic: { packageName: "@anthropic-ai/sdk", versions: [">=0.20"], entry: true },
  "google-genai": { packageName: "@google/genai", versions: [">=1"], entry: true },
  "openai-agents": { packageName: "@openai/agents-core", versions: [">=0.1"], entry: true },
  langchain: {
    packageName: "@langchain/core",
    versions: [">=0.2"],
    entry: false,
    files: [
      { path: "@langchain/core/dist/callbacks/manager.cjs" },
      { path: "@langchain/core/dist/callbacks/manager.js" },
      { path: "@langchain/core/dist/embeddings.cjs" },
      { path: "@langchain/core/dist/embeddings.js", replaces: ["Embeddings"] },
      { path: "@langchain/core/dist/vectorstores.cjs" },
      { path: "@langchain/core/dist/vectorstores.js" },
    ],
  },
  mcp: {
    packageName: "@modelcontextprotocol/sdk",
    versions: [">=1"],
    entry: false,
    requireFilesByName: true,
    files: [
      { path: "@modelcontextprotocol/sdk/dist/cjs/client/index.js" },
      { path: "@modelcontextprotocol/sdk/dist/esm/client/index.js" },
      { path: "@modelcontextprotocol/sdk/dist/cjs/server/mcp.js" },
      { path: "@modelcontextprotocol/sdk/dist/esm/server/mcp.js" },
    ],
  },
  ai: {
    packageName: "ai",
    versions: [">=4"],
    entry: true,
    replaces: ["generateText", "streamText", "generateObject", "streamObject", "embed", "embedMany"],
    modules: [{ packageName: "@ai-sdk/provider-utils", versions: [">=2"], replaces: ["postJsonToApi", "postToApi"] }],
  },
  bedrock: { packageName: "@aws-sdk/client-bedrock-runtime", versions: [">=3"], entry: true },
  "claude-agent-sdk": {
    packageName: "@anthropic-ai/claude-agent-sdk",
    versions: [">=0.1"],
    entry: true,
    replaces: ["query"],
    files: [{ path: "@anthropic-ai/claude-agent-sdk/core.mjs", replaces: ["query"] }],
  },
  llamaindex: {
    packageName: "@llamaindex/core",
    versions: [">=0.4"],
    entry: false,
    requireFilesByName: true,
    files: [
      { path: "@llamaindex/core/global/dist/index.cjs" },
      { path: "@llamaindex/core/global/dist/index.js" },
      { path: "@llamaindex/core/embeddings/dist/index.cjs" },
      { path: "@llamaindex/core/embeddings/dist/index.js" },
    ],
    modules: [{ packageName: "@llamaindex/workflow", versions: [">=1"] }],
  },
};
