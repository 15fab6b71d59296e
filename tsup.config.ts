import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", devserver: "src/devserver/index.ts", cli: "src/cli/main.ts", openai: "src/integrations/openai.ts", langchain: "src/integrations/langchain.ts", "openai-agents": "src/integrations/openai-agents.ts" },
  format: ["esm", "cjs"],
  // Shared chunks in both formats: every entry point of one format loads the same runtime
  // module (the registry in src/registry.ts then joins the ESM and CommonJS copies).
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // p-queue is ESM-only: bundle it so that `require("evaltrace")` works on every Node 20.
  noExternal: ["p-queue", "eventemitter3"],
});
