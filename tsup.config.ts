import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: { index: "src/index.ts", devserver: "src/devserver/index.ts", fakes: "src/fakes/index.ts", testing: "src/testing/index.ts", openai: "src/integrations/openai/index.ts", langchain: "src/integrations/langchain/index.ts", "openai-agents": "src/integrations/openai-agents.ts", anthropic: "src/integrations/anthropic.ts", bedrock: "src/integrations/bedrock/index.ts", "google-genai": "src/integrations/google-genai/index.ts", mcp: "src/integrations/mcp/index.ts", mastra: "src/integrations/mastra/index.ts", "claude-agent-sdk": "src/integrations/claude-agent-sdk/index.ts", llamaindex: "src/integrations/llamaindex/index.ts", auto: "src/auto/register.ts", doctor: "src/doctor/index.ts" },
    format: ["esm", "cjs"],
    // Shared chunks in both formats: every entry point of one format loads the same runtime
    // module (the registry in src/runtime/registry.ts then joins the ESM and CommonJS copies).
    splitting: true,
    // Rollup writes the shared chunks of the CommonJS build (tsup converts esbuild's with sucrase
    // otherwise, which turns every `?.` and `??` into a helper call that allocates an array and
    // closures: on the span path of every `require("evaltrace")` app). Measured in
    // docs/performance.md ("The CommonJS build").
    treeshake: true,
    // Vitest's types in the program: evaltrace/testing's declarations augment its `Assertion`
    // (nothing of Vitest is imported; an app without it ignores the augmentation).
    dts: { compilerOptions: { types: ["node", "vitest"] } },
    // Everything but the CLI bundle below, which is built beside this one at the same time.
    clean: ["!cli.js", "!cli.js.map"],
    sourcemap: true,
    target: "node20",
    // p-queue is ESM-only: bundle it so that `require("evaltrace")` works on every Node 20.
    noExternal: ["p-queue", "eventemitter3"],
  },
  {
    // The CLI (bin/evaltrace.mjs imports it): ESM only, no types; it is a program, not an API.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    splitting: false,
    dts: false,
    clean: false,
    sourcemap: true,
    target: "node20",
    noExternal: ["p-queue", "eventemitter3"],
  },
]);
