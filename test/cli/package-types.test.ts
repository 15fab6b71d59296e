import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The packages' types as a user's project sees them: installed under node_modules (symlinks to
// packages/evaltrace and packages/dev with their built dist), type-checked by this repository's TypeScript under each
// moduleResolution. `node` (node10) has no `exports`: typesVersions maps the subpaths there.
const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

const program = `
import { configure, observe, flush } from "evaltrace";
import { startDevServer, type DevServer } from "@evaltrace/dev";
import { startFakeOpenAI, type FakeOpenAI } from "@evaltrace/dev/fakes";
import type { wrapOpenAI } from "evaltrace/openai";
const run = async (): Promise<DevServer> => startDevServer({ port: 0 });
const answer = observe({ type: "llm", model: "gpt-4o", name: "answer" }, async function answer(q: string) { return q; });
configure({ apiKey: "k" });
const fake = async (): Promise<FakeOpenAI> => startFakeOpenAI();
void run; void answer; void flush; void fake; type _ = typeof wrapOpenAI;
// A wrong type is caught: the declarations were really read (not any).
// @ts-expect-error port is a number
startDevServer({ port: "80" });
// @ts-expect-error the fake takes no arguments
startFakeOpenAI(1);
`;

/** Settings per moduleResolution: module kind and the source file's extension. */
const setups = [
  { moduleResolution: "node16", module: "node16", file: "main.mts" },
  { moduleResolution: "node16", module: "node16", file: "main.cts" },
  { moduleResolution: "nodenext", module: "nodenext", file: "main.mts" },
  { moduleResolution: "bundler", module: "esnext", file: "main.ts" },
  { moduleResolution: "node10", module: "commonjs", file: "main.ts" },
] as const;

describe("the package's types resolve under every moduleResolution (needs the built dist)", () => {
  for (const s of setups) {
    it(`${s.moduleResolution} (${s.file})`, () => {
      const dir = mkdtempSync(join(tmpdir(), "evaltrace-types-"));
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(join(root, "packages", "evaltrace"), join(dir, "node_modules", "evaltrace"), "dir");
      mkdirSync(join(dir, "node_modules", "@evaltrace"));
      symlinkSync(join(root, "packages", "dev"), join(dir, "node_modules", "@evaltrace", "dev"), "dir");
      const source = s.file.endsWith(".cts") ? program.replaceAll(/^import (.+) from (".+");$/gm, "import $1 from $2;") : program;
      writeFileSync(join(dir, s.file), source);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, module: s.module, moduleResolution: s.moduleResolution, target: "es2022", types: [], lib: ["es2023", "dom"] },
          files: [s.file],
        }),
      );
      let out = "";
      try {
        execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
      } catch (err) {
        out = String((err as { stdout?: string }).stdout ?? err);
      }
      expect(out).toBe("");
    });
  }
});
