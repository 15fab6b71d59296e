import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import {
  type FakeAnthropic,
  type FakeBedrock,
  type FakeGoogleGenAI,
  type FakeOpenAI,
  startFakeAnthropic,
  startFakeBedrock,
  startFakeGoogleGenAI,
  startFakeOpenAI,
} from "../../src/fakes/index.js";
import { packageRoot } from "../helpers/child.js";
import { allBlocks, type Block, commandLines, commandProblems, languages } from "./snippet-blocks.js";

// Every code block of README.md and docs/**/*.md (test/build/snippet-blocks.ts says how each
// language is checked): TypeScript and JavaScript blocks type-check as written against the built
// package (imported by its name, through its exports map, as a user's project would), under
// strict TypeScript, and then RUN, each in a process of its own, against a fresh local emulator
// (strict) and the fake model servers, unless the block says on the line before it why it
// cannot run offline. What a snippet leaves to the reader (`goldens`, `client`, ...) is declared
// in readme-prelude.d.ts and made at run time by readme-prelude.mjs.

const blocks = allBlocks(packageRoot);
const dir = join(packageRoot, "test-artifacts", "readme-snippets");
const where = (b: Block) => `${b.page}:${b.line}`;
const code = (b: Block) => languages[b.lang];
const compiled = blocks.filter((b) => ["ts", "js", "cjs"].includes(code(b) ?? "") && b.notCompiled === undefined);
const notCompiled = blocks.filter((b) => b.notCompiled !== undefined);
/**
 * Bun serves the default export of the file it runs when that export has a `fetch()` (Bun.serve on
 * port 3000, and the process never ends): a Workers-style module block is a server there, not a
 * program. Those blocks run on Node only; on Bun they are listed as not run, with this reason.
 */
const bunServes = (b: Block) => process.versions.bun !== undefined && /export\s+default\s*\{[\s\S]*\bfetch\s*\(/.test(b.code);
const runnable = compiled.filter((b) => b.noRun === undefined && !bunServes(b));
const servedOnBun = compiled.filter((b) => b.noRun === undefined && bunServes(b));

function fileOf(b: Block, i: number, purpose: "check" | "run"): string {
  const ext = code(b) === "cjs" ? "cjs" : code(b) === "ts" && purpose === "check" ? "ts" : "mjs";
  return join(dir, `${purpose}-${String(i + 1).padStart(3, "0")}.${ext}`);
}

/** Type-checks every compiled block with tsc; resolves with tsc's output ("" when all is well). */
async function typecheck(): Promise<string> {
  const files = compiled.map((b, i) => {
    const file = fileOf(b, i, "check");
    // Each block is a module of its own (its names never clash with another's).
    writeFileSync(file, code(b) === "cjs" ? b.code : `${b.code}\nexport {};\n`);
    return file;
  });
  const base = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023", "DOM"], types: ["node"], noEmit: true, skipLibCheck: true, experimentalDecorators: false };
  const prelude = join(packageRoot, "test", "build", "readme-prelude.d.ts");
  // TypeScript blocks under strict TypeScript; JavaScript ones for their syntax (an editor does
  // not type-check plain JavaScript; those that run are run below, imports and calls included).
  const projects = {
    "tsconfig.ts.json": { compilerOptions: { ...base, strict: true }, files: [...files.filter((f) => f.endsWith(".ts")), prelude] },
    "tsconfig.js.json": { compilerOptions: { ...base, allowJs: true, checkJs: false, maxNodeModuleJsDepth: 0 }, files: [...files.filter((f) => !f.endsWith(".ts")), prelude] },
  };
  const outs = await Promise.all(
    Object.entries(projects).map(([name, project]) => {
      if (project.files.length === 1) return "";
      writeFileSync(join(dir, name), JSON.stringify(project));
      return new Promise<string>((resolve) => {
        execFile(process.execPath, [join(packageRoot, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, name)], { encoding: "utf8", cwd: packageRoot }, (err, stdout) =>
          resolve(err ? stdout || String(err) : ""),
        );
      });
    }),
  );
  return outs.join("");
}

/** What one block's run gave: its exit code, its output, the names of the traces the emulator got. */
const results = new Map<Block, { exit: number | null; out: string; traces: string[] }>();

/** Runs one block in a child process against an emulator of its own. */
async function run(b: Block, fakes: { openai: FakeOpenAI; anthropic: FakeAnthropic; google: FakeGoogleGenAI; bedrock: FakeBedrock }): Promise<void> {
  const file = fileOf(b, blocks.indexOf(b), "run");
  const js = code(b) === "ts" ? ts.transpileModule(b.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText : b.code;
  writeFileSync(file, js);
  const dev: DevServer = await startDevServer({ port: 0, plan: "team" });
  const env = {
    PATH: process.env.PATH ?? "",
    // The names the docs use.
    EVALTRACE_API_KEY: dev.projectKey,
    EVALTRACE_BASE_URL: dev.url,
    OPENAI_API_KEY: "test",
    OPENAI_BASE_URL: fakes.openai.url,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: fakes.anthropic.url,
    GEMINI_API_KEY: "test",
    GOOGLE_GEMINI_BASE_URL: fakes.google.url,
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fakes.bedrock.url,
  };
  const { exit, out } = await new Promise<{ exit: number | null; out: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", join(packageRoot, "test", "build", "readme-prelude.mjs"), file],
      { cwd: dir, env, timeout: 45_000, encoding: "utf8" },
      (err, stdout, stderr) => resolve({ exit: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
  const listed = (await (await fetch(`${dev.url}/_dev/traces`)).json()) as { name?: string }[] | { traces?: { name?: string }[] };
  const traces = (Array.isArray(listed) ? listed : (listed.traces ?? [])).map((t) => String(t.name));
  await dev.close();
  results.set(b, { exit, out, traces });
}

/** Runs every runnable block, three at a time; fills `results`. */
async function runAll(): Promise<void> {
  const [openai, anthropic, google, bedrock] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGoogleGenAI(), startFakeBedrock()]);
  try {
    // Three at a time: the machine is shared; each block is a Node process loading its SDKs.
    const queue = [...runnable];
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let b = queue.shift(); b !== undefined; b = queue.shift()) await run(b, { openai, anthropic, google, bedrock });
      }),
    );
  } finally {
    await Promise.all([openai.close(), anthropic.close(), google.close(), bedrock.close()]);
  }
}

/** The runs, started at once with the type-check (they overlap). */
let running: Promise<void>;

/** tsc over every compiled block, started at once so that it overlaps the runs below. */
let checking: Promise<string>;

describe("README and docs/ code blocks", () => {
  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    checking = typecheck();
    running = runAll();
    // Neither rejects into nothing: their results are asserted below.
    running.catch(() => {});
  });

  it("every block names a language the test knows (so that none goes unchecked)", () => {
    const unknown = blocks.filter((b) => code(b) === undefined).map((b) => `${where(b)}: \`\`\`${b.lang}`);
    expect(unknown).toEqual([]);
  });

  it("the README's developer quick start is two commands: `npm install && npm run demo` on one line, then `npm test` (issue 48)", () => {
    const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
    const developing = readme.slice(readme.indexOf("## Developing evaltrace"));
    const commands = /```sh\n([\s\S]*?)```/.exec(developing)?.[1]?.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()) ?? [];
    expect(commands.slice(0, 2)).toEqual(["npm install && npm run demo", "npm test"]);
  });

  it("the README's quick start is run, not only compiled", () => {
    const readme = runnable.filter((b) => b.page === "README.md");
    expect(readme.length).toBeGreaterThanOrEqual(2);
  });

  it("every TypeScript and JavaScript block type-checks as written", async () => {
    const out = await checking;
    // Point at the page's own lines: "check-003.ts(4,7)" is the third block's fourth line.
    const located = out
      .split("\n")
      .filter((l) => /check-\d+\.[cm]?[jt]s\(/.test(l) || (l.trim() !== "" && !l.startsWith(" ") && !/^\S+\(\d+,\d+\)/.test(l)))
      .map((l) =>
        l.replace(/\S*check-(\d+)\.[cm]?[jt]s\((\d+),\d+\)/g, (_, n: string, line: string) => {
          const b = compiled[Number(n) - 1]!;
          return `${b.page}:${b.line + Number(line) - 1}`;
        }),
      );
    expect(located).toEqual([]);
  }, 240_000);

  it("every shell block's commands exist: npm scripts, repository files, evaltrace commands and their flags", () => {
    const helps = new Map<string, string>();
    const help = (command: string | undefined) => {
      const key = command ?? "";
      if (!helps.has(key)) {
        const args = command === undefined ? ["--help"] : [command, "--help"];
        let text: string;
        try {
          text = execFileSync(process.execPath, [join(packageRoot, "packages", "evaltrace", "bin", "evaltrace.mjs"), ...args], { encoding: "utf8" });
        } catch (err) {
          text = String((err as { stderr?: string }).stderr ?? err);
        }
        helps.set(key, text);
      }
      return helps.get(key)!;
    };
    const problems: string[] = [];
    for (const b of blocks) {
      const kind = code(b);
      const lines = kind === "sh" ? commandLines(b.code) : kind === "yaml" ? [...b.code.matchAll(/^\s*-?\s*run:\s*(.+)$/gm)].map((m) => m[1]!) : [];
      for (const line of lines) for (const p of commandProblems(packageRoot, line, help)) problems.push(`${where(b)}: ${p}`);
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it("every JSON block parses", () => {
    const bad = blocks.filter((b) => code(b) === "json").flatMap((b) => {
      try {
        JSON.parse(b.code);
        return [];
      } catch (err) {
        return [`${where(b)}: ${(err as Error).message}`];
      }
    });
    expect(bad).toEqual([]);
  });

  describe("runnable blocks run offline against the emulator and the fake model servers", () => {
    beforeAll(() => running, 300_000);

    it.each(runnable.map((b) => [where(b), b] as const))("%s runs to the end", (_name, b) => {
      const r = results.get(b);
      expect(r?.exit, r?.out).toBe(0);
    });

    it("the README's quick start sends its trace to the emulator", () => {
      const quick = runnable.find((b) => b.page === "README.md" && b.code.includes('name: "support-bot"'));
      expect(quick).toBeDefined();
      expect(results.get(quick!)?.traces).toContain("support-bot");
    });
  });

  it("lists what is not run, each with its reason", () => {
    const notRun = compiled.filter((b) => b.noRun !== undefined);
    for (const b of [...notRun, ...notCompiled]) expect(b.noRun!.length, where(b)).toBeGreaterThan(10);
    const shown = blocks.filter((b) => ["sh", "yaml", "json", "text"].includes(code(b) ?? ""));
    console.log(
      [
        `code blocks: ${blocks.length}; compiled ${compiled.length}, of them run ${runnable.length} and compiled only ${notRun.length}; not compiled ${notCompiled.length}; shell, yaml, json and text ${shown.length}`,
        ...notRun.map((b) => `  compiled only ${where(b)}: ${b.noRun}`),
        ...servedOnBun.map((b) => `  not run on Bun ${where(b)}: Bun serves a module whose default export has fetch() instead of running it`),
        ...notCompiled.map((b) => `  not compiled ${where(b)}: ${b.notCompiled}`),
      ].join("\n"),
    );
  });
});
