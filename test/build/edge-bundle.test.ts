import { builtinModules } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../helpers/child.js";

// Issue 49: Next.js compiles instrumentation.ts for its edge runtime too, so a static
// `import { configure, EvaltraceSpanProcessor } from "evaltrace"` there puts evaltrace's main
// entry in the edge bundle. A Node builtin imported at module scope that the edge runtime lacks
// (`url`, `module`) becomes Turbopack's `__import_unsupported` and fails every edge request. The
// built entry is bundled here as an edge bundler does (its packages included) and the builtins it
// still imports are listed. test/nextjs/nextjs.test.ts serves a real Next app that does this.

/** The Node builtins Next.js's edge runtime provides (its docs: "Edge Runtime", supported APIs). */
const EDGE_BUILTINS = ["async_hooks", "buffer", "events", "assert", "util"];

const builtin = (path: string) => {
  const name = path.replace(/^node:/, "");
  return builtinModules.includes(name) ? name : undefined;
};

describe("evaltrace's main entry in an edge bundle", () => {
  it("imports at module scope no Node builtin beyond those Next.js's edge runtime has (async_hooks, buffer, events, assert, util)", async () => {
    const result = await build({
      entryPoints: [join(packageRoot, "packages", "evaltrace", "dist", "index.js")],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      conditions: ["edge-light", "worker", "browser", "import", "default"],
      mainFields: ["module", "main"],
      // Builtins stay imports (as the edge compiler sees them); every package is bundled.
      external: ["node:*", ...builtinModules],
      logLevel: "silent",
    });
    const imported = new Set<string>();
    for (const input of Object.values(result.metafile.inputs)) {
      for (const imp of input.imports) {
        const name = imp.external && imp.kind === "import-statement" ? builtin(imp.path) : undefined;
        if (name) imported.add(name);
      }
    }
    expect([...imported].filter((n) => !EDGE_BUILTINS.includes(n)).sort()).toEqual([]);
  });
});
