import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../helpers/child.js";

// Every ```ts block of the README and of docs/**/*.md type-checks as written, against the built package (imported by
// its name, through its exports map, as a user's project would), under strict TypeScript. What a
// snippet leaves to the reader (`goldens`, `handle`, ...) is declared once in readme-prelude.d.ts.

const docsDir = join(packageRoot, "docs");
// docs/ and its folders (docs/integrations/<sdk>.md), every page.
const docs = existsSync(docsDir) ? (readdirSync(docsDir, { recursive: true }) as string[]).filter((f) => f.endsWith(".md")).sort() : [];
const readme = [join(packageRoot, "README.md"), ...docs.map((f) => join(docsDir, f))].map((f) => readFileSync(f, "utf8")).join("\n");
const snippets = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? "");
const dir = join(packageRoot, "test-artifacts", "readme-snippets");

describe("README and docs/", () => {
  it("has TypeScript snippets", () => {
    expect(snippets.length).toBeGreaterThan(10);
  });

  it("every TypeScript snippet type-checks as written", () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = snippets.map((code, i) => {
      const file = join(dir, `snippet-${String(i + 1).padStart(2, "0")}.ts`);
      // Each snippet is a module of its own (its names never clash with another's).
      writeFileSync(file, `${code}\nexport {};\n`);
      return file;
    });
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023", "DOM"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true, experimentalDecorators: false },
        files: [...files, join(packageRoot, "test", "build", "readme-prelude.d.ts")],
      }),
    );
    let out = "";
    try {
      execFileSync(process.execPath, [join(packageRoot, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], { encoding: "utf8", cwd: packageRoot });
    } catch (err) {
      out = String((err as { stdout?: string }).stdout ?? err);
    }
    // Point at the README's own lines: "snippet-03.ts(4,7)" is the third block's fourth line.
    const where = out.replace(/\S*snippet-(\d+)\.ts\((\d+),\d+\)/g, (_, n: string, line: string) => {
      const start = readme.split("\n").findIndex((_l, i, lines) => lines.slice(0, i + 1).filter((l) => l === "```ts").length === Number(n));
      return `README.md:${start + 1 + Number(line)}`;
    });
    expect(where).toBe("");
  }, 120_000);
});
