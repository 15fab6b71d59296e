import { defineConfig, type Options } from "tsup";

// One source tree (src/), three packages (packages/): each build below names the package it
// writes and the entries of src/ it takes. docs/architecture.md ("Packages") explains the cut.

/** `evaltrace`: what a production app runs. Each entry is a subpath of its exports map. */
const sdkEntries = {
  index: "src/index.ts",
  testing: "src/testing/index.ts",
  openai: "src/integrations/openai/index.ts",
  langchain: "src/integrations/langchain/index.ts",
  "openai-agents": "src/integrations/openai-agents.ts",
  anthropic: "src/integrations/anthropic.ts",
  bedrock: "src/integrations/bedrock/index.ts",
  "google-genai": "src/integrations/google-genai/index.ts",
  mcp: "src/integrations/mcp/index.ts",
  mastra: "src/integrations/mastra/index.ts",
  "claude-agent-sdk": "src/integrations/claude-agent-sdk/index.ts",
  llamaindex: "src/integrations/llamaindex/index.ts",
  auto: "src/auto/register.ts",
  instrument: "src/auto/public.ts",
  doctor: "src/doctor/index.ts",
};

/** Zero-code's hook code, one entry per library (CommonJS only: loaded by `require`, `src/auto/hook-code.ts`). */
const hookEntries = {
  "auto-hook-openai": "src/auto/hooks/openai.ts",
  "auto-hook-anthropic": "src/auto/hooks/anthropic.ts",
  "auto-hook-google-genai": "src/auto/hooks/google-genai.ts",
  "auto-hook-openai-agents": "src/auto/hooks/openai-agents.ts",
  "auto-hook-langchain": "src/auto/hooks/langchain.ts",
  "auto-hook-mcp": "src/auto/hooks/mcp.ts",
  "auto-hook-ai": "src/auto/hooks/ai-sdk.ts",
  "auto-hook-bedrock": "src/auto/hooks/bedrock.ts",
  "auto-hook-claude-agent-sdk": "src/auto/hooks/claude-agent-sdk.ts",
  "auto-hook-llamaindex": "src/auto/hooks/llamaindex.ts",
};

/** `@evaltrace/dev`: the emulator (`.`), the fake model servers (`./fakes`) and the `dev` command (`./cli`). */
const devEntries = { index: "src/devserver/index.ts", fakes: "src/fakes/index.ts", cli: "src/cli/dev.ts" };

const common: Options = {
  target: "node20",
  // No source maps: the package carries its code once, readable as it is (unminified), not
  // copies of it (issue 41: 6.3 MB of the 9.1 MB unpacked were maps with their sources).
  sourcemap: false,
  // Rollup writes the shared chunks of the CommonJS build (tsup converts esbuild's with sucrase
  // otherwise, which turns every `?.` and `??` into a helper call that allocates an array and
  // closures: on the span path of every `require("evaltrace")` app). Measured in
  // docs/performance.md ("The CommonJS build").
  treeshake: true,
  // Every package is the app's: a dependency or (optional) peer of the package, or a hook
  // package of @evaltrace/auto loaded at run time, never a copy inside the build.
  external: [/^[^./]/],
  // Vitest's types in the program: evaltrace/testing's declarations augment its `Assertion`
  // (nothing of Vitest is imported; an app without it ignores the augmentation).
  dts: { compilerOptions: { types: ["node", "vitest"] } },
};

export default defineConfig([
  {
    ...common,
    // ESM: the SDK's entries and the CLI (bin/evaltrace.mjs imports dist/cli.js), one set of
    // shared chunks for all of them. The CLI has no types: it is a program, not an API.
    // `auto-loader`: the loader zero-code registers on Node's module-hooks thread (an ESM file).
    entry: { ...sdkEntries, cli: "src/cli/main.ts", "auto-loader": "src/auto/esm-loader.ts" },
    dts: { ...(common.dts as object), entry: sdkEntries },
    outDir: "packages/evaltrace/dist",
    format: ["esm"],
    // Shared chunks in both formats: every entry point of one format loads the same runtime
    // module (the registry in src/runtime/registry.ts then joins the ESM and CommonJS copies).
    splitting: true,
    // Each format cleans its own files only: both builds write this folder at once.
    clean: ["!**/*.cjs", "!**/*.d.cts"],
  },
  {
    ...common,
    // `auto-setup`: what zero-code loads (synchronously, so as CommonJS) at the app's first import of a library it hooks.
    // `auto-hook-<library>`: each library's hook code, loaded at the first module its hooks target (`src/auto/hook-code.ts`).
    entry: { ...sdkEntries, "auto-setup": "src/auto/setup.ts", ...hookEntries },
    dts: { ...(common.dts as object), entry: sdkEntries },
    outDir: "packages/evaltrace/dist",
    format: ["cjs"],
    splitting: true,
    clean: ["!**/*.js", "!**/*.d.ts"],
  },
  {
    ...common,
    // The dev kit stands apart from the SDK (it reads only the ground of src/: the protocol and
    // utilities, bundled here), so it is built on its own.
    entry: devEntries,
    outDir: "packages/dev/dist",
    format: ["esm", "cjs"],
    splitting: true,
    clean: true,
  },
]);
