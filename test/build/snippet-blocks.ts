import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// The code blocks of README.md and docs/**/*.md, read for test/build/readme-snippets.test.ts.
//
// A block is handled by its language (the fence's first word):
//   ts, typescript, js, mjs, javascript  type-checked against the built package, then RUN
//   cjs                                  type-checked (checkJs), then RUN as CommonJS
//   sh, bash, shell                      every command is checked: it exists (npm scripts,
//                                        repository files, `evaltrace` commands and their flags)
//   yaml                                 its `run:` lines are checked as sh commands
//   json                                 parsed
//   text                                 a program's output, shown: not checked
// A block that cannot run offline says why in a comment on the line before it:
//   <!-- snippet: compile-only: <the reason> -->
// and one that cannot even be compiled here (it needs a package this repository does not install):
//   <!-- snippet: not-compiled: <the reason> -->
// A block that declares the app's own code (`declare function search(...)`) is a fragment: it
// is type-checked and not run (nothing to call at run time).

/** One fenced block. */
export interface Block {
  /** Path relative to the package root. */
  page: string;
  /** 1-based line of the block's first code line. */
  line: number;
  lang: string;
  code: string;
  /** Why the block is not run (compile-only marker, or a fragment); undefined: it runs. */
  noRun?: string;
  /** Why the block is not even compiled (not-compiled marker). */
  notCompiled?: string;
}

/** How each language is checked. */
export const languages: Readonly<Record<string, "ts" | "js" | "cjs" | "sh" | "yaml" | "json" | "text">> = {
  ts: "ts",
  typescript: "ts",
  js: "js",
  mjs: "js",
  javascript: "js",
  cjs: "cjs",
  sh: "sh",
  bash: "sh",
  shell: "sh",
  yaml: "yaml",
  yml: "yaml",
  json: "json",
  text: "text",
};

const marker = /^<!--\s*snippet:\s*(compile-only|not-compiled):\s*(.+?)\s*-->$/;

/** Every markdown page the test covers: README.md, then docs/ and its folders, sorted. */
export function pages(root: string): string[] {
  const docsDir = join(root, "docs");
  const docs = existsSync(docsDir) ? (readdirSync(docsDir, { recursive: true }) as string[]).filter((f) => f.endsWith(".md")).sort() : [];
  return ["README.md", ...docs.map((f) => join("docs", f))];
}

/** The fenced blocks of one page, with their compile-only markers. */
export function blocksOf(root: string, page: string): Block[] {
  const lines = readFileSync(join(root, page), "utf8").split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== "```") end++;
    const code = lines.slice(i + 1, end).join("\n");
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const mark = before >= 0 ? marker.exec(lines[before]!.trim()) : null;
    const fragment = /^declare (function|const|let|class) /m.test(code) ? "a fragment: it declares the app's own code it calls" : undefined;
    const notCompiled = mark?.[1] === "not-compiled" ? mark[2] : undefined;
    out.push({ page, line: i + 2, lang: open[1] ?? "", code, noRun: notCompiled ?? mark?.[2] ?? fragment, notCompiled });
    i = end;
  }
  return out;
}

/** Every block of every page. */
export function allBlocks(root: string): Block[] {
  return pages(root).flatMap((p) => blocksOf(root, p));
}

/** Commands a shell block may use beyond npm, npx, node and evaltrace (checked on their own). */
const knownCommands = new Set(["export", "cd", "curl", "git", "bun", "open", "cat", "echo"]);

/**
 * The problems of one shell command line: an npm script that package.json lacks, a repository
 * file that does not exist, an `evaltrace` command or flag its `--help` does not list.
 * `help(command)` returns the usage text of `evaltrace <command> --help` (or of `evaltrace --help`).
 */
export function commandProblems(root: string, line: string, help: (command: string | undefined) => string): string[] {
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const problems: string[] = [];
  // One command line may chain several with && or |.
  for (const part of line.split(/&&|\|\||\|/)) {
    const words = part
      // Leading variable assignments, quoted or not (NODE_OPTIONS="--import evaltrace/auto").
      .replace(/^\s*([A-Z_][A-Z0-9_]*=("[^"]*"|'[^']*'|\S*)\s+)+/, "")
      .trim()
      .split(/\s+/)
      .filter((w) => w !== "");
    const [cmd, ...args] = words;
    if (cmd === undefined) continue;
    if (cmd === "npm") {
      const [sub, name] = args;
      if (sub === "run" && name !== undefined && !Object.hasOwn(scripts, name)) problems.push(`npm run ${name}: package.json has no such script`);
      else if (sub === "test" && !Object.hasOwn(scripts, "test")) problems.push("npm test: package.json has no test script");
      else if (!["install", "i", "ci", "run", "test", "start"].includes(sub ?? "")) problems.push(`npm ${sub}: not a command these pages use`);
      continue;
    }
    if (cmd === "npx" || cmd === "evaltrace") {
      const rest = cmd === "npx" ? args : [cmd, ...args];
      if (rest[0] !== "evaltrace") {
        if (!existsSync(join(root, "node_modules", ".bin", rest[0] ?? ""))) problems.push(`npx ${rest[0]}: not installed`);
        continue;
      }
      problems.push(...evaltraceProblems(rest.slice(1), help));
      continue;
    }
    if (cmd === "node") {
      const file = args.find((a) => !a.startsWith("-") && /\.(m|c)?(j|t)s$/.test(a));
      // Repository files must exist; an app's own file (app.mjs) is the reader's.
      if (file && /^(examples|bench|scripts|test)\//.test(file) && !existsSync(join(root, file))) problems.push(`node ${file}: no such file`);
      continue;
    }
    if (!knownCommands.has(cmd)) problems.push(`${cmd}: not a command these pages use (add it to knownCommands if it is meant)`);
  }
  return problems;
}

function evaltraceProblems(args: string[], help: (command: string | undefined) => string): string[] {
  const [command, ...flags] = args;
  if (command === undefined || command.startsWith("-")) {
    const usage = help(undefined);
    return command === undefined || usage.includes(command) ? [] : [`evaltrace ${command}: not in evaltrace --help`];
  }
  const usage = help(command);
  if (!usage.startsWith("Usage")) return [`evaltrace ${command}: not a command (${usage.split("\n")[0]})`];
  return flags.filter((f) => /^--[a-z]/.test(f) && f !== "--help").flatMap((f) => (usage.includes(f.split("=")[0]!) ? [] : [`evaltrace ${command} ${f}: not in its --help`]));
}

/** The command lines of a shell block: comments, prompts and continuation lines handled. */
export function commandLines(code: string): string[] {
  return code
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.replace(/^\$ /, "").replace(/(^|\s)#.*$/, "").trim())
    .filter((l) => l !== "");
}
