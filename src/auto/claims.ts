import type { LibraryName } from "./libraries.js";

/** What one library's hooks claim. */
export interface Claim {
  /** Its packages: the hook's `packageName` and the packages of its `modules`. */
  packages: readonly string[];
  /** What the ESM loader hook intercepts for it: module names or patterns of files' URLs (default: `packages`). Nothing else of the app goes through the loader. */
  esmInclude?: readonly (string | RegExp)[];
}

/**
 * What each library's hooks (`hooks/`) claim: zero-code sets its hooks up at the app's first
 * import or require of one of these packages, and only for the libraries the app has installed
 * (`installed.ts`). A data table that start-up reads without loading the hooks; a test holds it
 * to them.
 */
export const CLAIMS: Readonly<Record<LibraryName, Claim>> = {
  openai: { packages: ["openai"], esmInclude: ["openai", /\/openai\/index\.mjs$/] },
  anthropic: { packages: ["@anthropic-ai/sdk"] },
  "google-genai": { packages: ["@google/genai"] },
  "openai-agents": { packages: ["@openai/agents-core"] },
  langchain: { packages: ["@langchain/core"], esmInclude: [/\/@langchain\/core\/dist\/(callbacks\/manager|embeddings|vectorstores)\.js$/] },
  mcp: { packages: ["@modelcontextprotocol/sdk"], esmInclude: [/\/@modelcontextprotocol\/sdk\/dist\/esm\/(client|server)\/(index|mcp)\.js$/] },
  ai: { packages: ["ai", "@ai-sdk/provider-utils"] },
  bedrock: { packages: ["@aws-sdk/client-bedrock-runtime"] },
  "claude-agent-sdk": { packages: ["@anthropic-ai/claude-agent-sdk"], esmInclude: ["@anthropic-ai/claude-agent-sdk", /\/@anthropic-ai\/claude-agent-sdk\/core\.mjs$/] },
  llamaindex: { packages: ["@llamaindex/core", "@llamaindex/workflow"], esmInclude: [/\/@llamaindex\/core\/(global|embeddings)\/dist\/index\.js$/, "@llamaindex/workflow"] },
};

/** What the ESM loader hook intercepts for `libraries`. */
export function esmIncludeOf(libraries: readonly LibraryName[]): (string | RegExp)[] {
  return libraries.flatMap((name) => [...(CLAIMS[name].esmInclude ?? CLAIMS[name].packages)]);
}

/** Every package the claims of `libraries` name: the modules the ESM hooks look at (`esm-scope.ts`): hand-off or import-in-the-middle. */
export function packagesOf(libraries: readonly LibraryName[]): string[] {
  return libraries.flatMap((name) => [...CLAIMS[name].packages]);
}

/** The package a bare specifier names (`@langchain/core/callbacks/manager` → `@langchain/core`); undefined for a relative, absolute or builtin one. */
export function packageOfSpecifier(specifier: string): string | undefined {
  const first = specifier.charCodeAt(0);
  // "." "/" and "#": relative, absolute or a package import map; "node:" and "file:" URLs.
  if (first === 46 || first === 47 || first === 35 || specifier.includes(":")) return undefined;
  const slash = specifier.indexOf("/");
  if (first !== 64) return slash === -1 ? specifier : specifier.slice(0, slash);
  const second = specifier.indexOf("/", slash + 1);
  return second === -1 ? specifier : specifier.slice(0, second);
}

/** The package a resolved file URL is in (the name after its last `/node_modules/`); undefined outside node_modules. */
export function packageOfUrl(url: string): string | undefined {
  const at = url.lastIndexOf("/node_modules/");
  return at === -1 ? undefined : packageOfSpecifier(url.slice(at + "/node_modules/".length));
}
