import { describe, expect, it } from "vitest";
import { withNamespaceHandoff } from "../../src/auto/esm-handoff.js";
import { versionSatisfies } from "../../src/auto/esm-targets.js";

const URL_ = "file:///app/node_modules/ai/dist/index.mjs";

describe("the ES module namespace hand-off (auto/esm-handoff.ts)", () => {
  it("appends a self-import and the call, and leaves the module's code as it was when nothing is replaced", () => {
    const source = "class Client {}\nexport { Client };\n//# sourceMappingURL=index.mjs.map";
    const out = withNamespaceHandoff(source, URL_, []);
    expect(out.startsWith(source)).toBe(true);
    expect(out).toContain(`import * as __evaltrace_ns from ${JSON.stringify(URL_)};`);
    expect(out).toContain('globalThis[Symbol.for("evaltrace.esm")]?.(import.meta.url, __evaltrace_ns, {});');
  });

  it("exports a binding of its own for each replaced name of the final export clause (bundlers' and minifiers' forms), the module's own binding untouched", () => {
    const bundled = withNamespaceHandoff("async function generateText() {}\nfunction tool() {}\nexport {\n  generateText,\n  tool,\n  zod3 as zodSchema\n};\n", URL_, ["generateText", "streamText"]);
    expect(bundled).toContain("export {\n  __evaltrace_x_generateText as generateText,\n  tool,\n  zod3 as zodSchema\n}");
    expect(bundled).toContain("{generateText: generateText}");
    expect(bundled).toContain('var __evaltrace_x_generateText = __evaltrace_r && Object.hasOwn(__evaltrace_r, "generateText") ? __evaltrace_r.generateText : generateText;');
    expect(bundled).toContain("async function generateText() {}");
    const minified = withNamespaceHandoff('function ea(){}export{Le as AbortError,ea as query};', URL_, ["query"]);
    expect(minified).toContain("export {Le as AbortError,__evaltrace_x_query as query}");
    expect(minified).toContain("{query: ea}");
  });

  it("makes a name exported where it is declared replaceable too (declared without `export`, exported below)", async () => {
    const out = withNamespaceHandoff("export async function generateText() {}\nexport class Embeddings {}\nexport const tool = 1;\n", URL_, ["generateText", "Embeddings"]);
    expect(out).toContain("async function generateText() {}\nclass Embeddings {}\nexport const tool = 1;");
    expect(out).toContain("export { __evaltrace_x_generateText as generateText };");
    expect(out).toContain("export { __evaltrace_x_Embeddings as Embeddings };");
    expect(out).toContain("{generateText: generateText, Embeddings: Embeddings}");
  });

  it("leaves a re-export (`export { a } from`) and a clause without the names alone", () => {
    const source = 'export { generateText } from "./x.js";\nexport { other };\n';
    const out = withNamespaceHandoff(source, URL_, ["generateText"]);
    expect(out.startsWith(source)).toBe(true);
    expect(out).toContain("{}");
  });

  it("runs: importers get the replacement, the module's own code its own function; without the hook, the original", async () => {
    const { writeFileSync, mkdtempSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { pathToFileURL } = await import("node:url");
    const dir = mkdtempSync(join(tmpdir(), "handoff-"));
    const file = join(dir, "m.mjs");
    const url = pathToFileURL(file).href;
    writeFileSync(file, withNamespaceHandoff("function hello() { return 'hi'; }\nfunction inner() { return hello(); }\nexport { hello, inner };\n", url, ["hello"]));
    const key = Symbol.for("evaltrace.esm");
    const seen: unknown[] = [];
    const handOff = (u: string, ns: object, originals: Record<string, () => string>) => {
      seen.push(u, Object.keys(ns));
      return { hello: () => `wrapped ${originals.hello?.()}` };
    };
    Object.defineProperty(globalThis, key, { value: handOff, configurable: true });
    try {
      const m = (await import(url)) as { hello: () => string; inner: () => string };
      expect(m.hello()).toBe("wrapped hi");
      expect(m.inner()).toBe("hi");
      expect(seen).toEqual([url, ["hello", "inner"]]);
    } finally {
      delete (globalThis as { [k: symbol]: unknown })[key];
    }
    const inline = join(dir, "inline.mjs");
    writeFileSync(inline, withNamespaceHandoff("export function hello() { return 'hi'; }\nexport function inner() { return hello(); }\n", pathToFileURL(inline).href, ["hello"]));
    Object.defineProperty(globalThis, key, { value: handOff, configurable: true });
    try {
      const m = (await import(pathToFileURL(inline).href)) as { hello: () => string; inner: () => string };
      expect([m.hello(), m.inner()]).toEqual(["wrapped hi", "hi"]);
    } finally {
      delete (globalThis as { [k: symbol]: unknown })[key];
    }
    const plain = join(dir, "plain.mjs");
    writeFileSync(plain, withNamespaceHandoff("function hello() { return 'hi'; }\nexport { hello };\n", pathToFileURL(plain).href, ["hello"]));
    expect(((await import(pathToFileURL(plain).href)) as { hello: () => string }).hello()).toBe("hi");
  });
});

describe("versionSatisfies (auto/esm-targets.ts): the hooks' `>=` ranges, as semver reads them", () => {
  it("compares major, minor and patch; a prerelease or an unreadable version is never in range", () => {
    expect(versionSatisfies("4.0.0", [">=4"])).toBe(true);
    expect(versionSatisfies("3.9.9", [">=4"])).toBe(false);
    expect(versionSatisfies("0.20.1", [">=0.20"])).toBe(true);
    expect(versionSatisfies("0.19.9", [">=0.20"])).toBe(false);
    expect(versionSatisfies("10.0.0", [">=9.1.2"])).toBe(true);
    expect(versionSatisfies("6.0.0-beta.1", [">=4"])).toBe(false);
    expect(versionSatisfies(undefined, [">=1"])).toBe(false);
    expect(versionSatisfies("1.0.0", ["^1"])).toBe(false);
  });
});
