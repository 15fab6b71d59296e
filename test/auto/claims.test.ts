import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLAIMS, esmIncludeOf, packageOfSpecifier, packageOfUrl, packagesOf } from "../../src/auto/claims.js";
import { esmScope } from "../../src/auto/esm-scope.js";
import { aiSdkHook } from "../../src/auto/hooks/ai-sdk.js";
import { anthropicHook } from "../../src/auto/hooks/anthropic.js";
import { bedrockHook } from "../../src/auto/hooks/bedrock.js";
import { claudeAgentSdkHook } from "../../src/auto/hooks/claude-agent-sdk.js";
import { googleGenAIHook } from "../../src/auto/hooks/google-genai.js";
import { langchainHook } from "../../src/auto/hooks/langchain.js";
import { llamaindexHook } from "../../src/auto/hooks/llamaindex.js";
import { mcpHook } from "../../src/auto/hooks/mcp.js";
import { openaiHook } from "../../src/auto/hooks/openai.js";
import { openaiAgentsHook } from "../../src/auto/hooks/openai-agents.js";
import { HOOK_CODE } from "../../src/auto/hook-code.js";
import { HOOK_SHAPES, type HookShape } from "../../src/auto/hook-shapes.js";
import { installedPackages } from "../../src/auto/installed.js";
import type { LibraryHook } from "../../src/auto/instrumentation.js";
import { LIBRARIES } from "../../src/auto/libraries.js";

const hooks = [aiSdkHook, anthropicHook, bedrockHook, claudeAgentSdkHook, googleGenAIHook, langchainHook, llamaindexHook, mcpHook, openaiHook, openaiAgentsHook];

describe("what zero-code claims (auto/claims.ts)", () => {
  it("names, for every library, exactly the packages its hook loads on (its package and its modules')", () => {
    expect(hooks.map((h) => h.library).sort()).toEqual([...LIBRARIES].sort());
    for (const hook of hooks) {
      expect(CLAIMS[hook.library].packages, hook.library).toEqual([hook.packageName, ...(hook.modules ?? []).map((m) => m.packageName)]);
    }
  });

  it("has, in HOOK_SHAPES (the targets made before any hook code loads), exactly what each hook targets, and HOOK_CODE names each hook's export", () => {
    const shapeOf = (hook: LibraryHook): HookShape => ({
      packageName: hook.packageName,
      versions: hook.versions,
      entry: typeof hook.onLoad === "function",
      ...(hook.replaces ? { replaces: hook.replaces } : {}),
      ...(hook.files ? { files: hook.files.map((f) => ({ path: f.path, ...(f.replaces ? { replaces: f.replaces } : {}) })) } : {}),
      ...(hook.requireFilesByName ? { requireFilesByName: true } : {}),
      ...(hook.modules ? { modules: hook.modules.map((m) => ({ packageName: m.packageName, versions: m.versions, ...(m.replaces ? { replaces: m.replaces } : {}) })) } : {}),
    });
    const byExport: Record<string, LibraryHook> = { aiSdkHook, anthropicHook, bedrockHook, claudeAgentSdkHook, googleGenAIHook, langchainHook, llamaindexHook, mcpHook, openaiHook, openaiAgentsHook };
    for (const hook of hooks) {
      expect(HOOK_SHAPES[hook.library], hook.library).toEqual(shapeOf(hook));
      expect(byExport[HOOK_CODE[hook.library].exported], hook.library).toBe(hook);
    }
  });

  it("keeps every ESM include entry inside the scope the hooks hand import-in-the-middle (esm-scope.ts): a module outside it is never one to wrap", () => {
    for (const library of LIBRARIES) {
      const inScope = esmScope(packagesOf([library]));
      for (const entry of esmIncludeOf([library])) {
        if (typeof entry === "string") expect(packagesOf([library]), `${library}: ${entry}`).toContain(packageOfSpecifier(entry));
        // A pattern's fixed folder part (`/@langchain/core/dist/...`) names a package of the library.
        else expect(inScope(`file:///app/node_modules${entry.source.replace(/\\/g, "").replace(/[()|$]/g, "")}`, ""), `${library}: ${entry.source}`).toBe(true);
      }
    }
    const inScope = esmScope(["openai", "@langchain/core"]);
    expect(inScope("file:///app/node_modules/.pnpm/openai@6.1.0/node_modules/openai/index.mjs", "./index.mjs")).toBe(true);
    expect(inScope("file:///app/node_modules/@langchain/core/dist/callbacks/manager.js", "./manager.js")).toBe(true);
    expect(inScope("file:///work/linked-openai/index.mjs", "openai")).toBe(true);
    expect(inScope("file:///app/node_modules/zod/v4/index.js", "zod")).toBe(false);
    expect(inScope("file:///app/node_modules/@langchain/openai/dist/index.js", "@langchain/openai")).toBe(false);
    expect(inScope("node:fs", "fs")).toBe(false);
  });

  it("reads the package of a bare specifier and of a file URL under node_modules, and none of a relative, absolute or builtin one", () => {
    expect(packageOfSpecifier("openai")).toBe("openai");
    expect(packageOfSpecifier("openai/resources/chat")).toBe("openai");
    expect(packageOfSpecifier("@langchain/core/callbacks/manager")).toBe("@langchain/core");
    expect(packageOfSpecifier("@google/genai")).toBe("@google/genai");
    expect([packageOfSpecifier("./x.js"), packageOfSpecifier("/a/b.js"), packageOfSpecifier("node:fs"), packageOfSpecifier("#internal")]).toEqual([undefined, undefined, undefined, undefined]);
    expect(packageOfUrl("file:///app/node_modules/x/node_modules/@langchain/core/dist/callbacks/manager.js")).toBe("@langchain/core");
    expect(packageOfUrl("file:///app/src/openai.js")).toBeUndefined();
  });
});

describe("installedPackages (auto/installed.ts)", () => {
  it("finds a package in a node_modules folder above the app's folder and not one that is absent", () => {
    const root = mkdtempSync(join(tmpdir(), "evaltrace-installed-"));
    mkdirSync(join(root, "node_modules", "@anthropic-ai", "sdk"), { recursive: true });
    writeFileSync(join(root, "node_modules", "@anthropic-ai", "sdk", "package.json"), "{}");
    mkdirSync(join(root, "app", "src"), { recursive: true });
    expect(installedPackages(["openai", "@anthropic-ai/sdk", "ai"], [join(root, "app", "src")])).toEqual(["@anthropic-ai/sdk"]);
  });
});
