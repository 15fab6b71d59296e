import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ownFile } from "../util/own-file.js";
import { InputError } from "./input-error.js";

/** What an eval module may export (named, or on its default export / module.exports). */
export interface EvalModule {
  task?: unknown;
  goldens?: unknown;
  metricCollection?: unknown;
  identifier?: unknown;
  hyperparameters?: unknown;
  scorers?: unknown;
  trials?: unknown;
}

/** The eval modules of a directory: `*.eval.{js,mjs,cjs,ts,mts,cts}`, at any depth (but `node_modules` and dot folders), sorted. */
const EVAL_FILE = /\.eval\.[cm]?[jt]s$/;

/** The modules `path` names: the file itself, or the eval modules of a directory. */
export function evalFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (EVAL_FILE.test(entry.name)) found.push(full);
    }
  };
  walk(path);
  if (found.length === 0) throw new InputError(`no *.eval.* module in ${path} (name them like support.eval.mjs or support.eval.ts)`);
  return found.sort();
}

/** The name of a run from its file: `support.eval.ts` and `support.ts` are both `support`. */
export function runName(file: string): string {
  return file
    .split(/[\\/]/)
    .pop()!
    .replace(/(\.eval)?\.[cm]?[jt]s$/, "");
}

const TYPESCRIPT = /\.[cm]?ts$/;

/** Whether this Node runs TypeScript itself (type stripping: on by default from Node 22.18 and 23.6). */
const nodeStripsTypes = () => Boolean((process.features as { typescript?: unknown }).typescript);

/** tsx's `tsImport`: imports one module (and what it imports) through tsx, without changing how the process loads anything else. */
type TsImport = (specifier: string, parentURL: string) => Promise<unknown>;

/**
 * On a Node without type stripping (Node 20, or 22 before 22.18 without the flag), tsx's
 * `tsImport`, resolved from the module's own folder (the app's `node_modules`), then from ours.
 * Its ESM entry (its exports map's `./esm/api` `import`), the CommonJS one registering a loader
 * that cannot be found when imported.
 */
async function tsxImport(file: string): Promise<TsImport> {
  for (const from of [file, ownFile()]) {
    let pkgFile: string;
    try {
      pkgFile = createRequire(from).resolve("tsx/package.json");
    } catch {
      continue;
    }
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { exports?: Record<string, { import?: string | { default?: string } }> };
    const entry = pkg.exports?.["./esm/api"]?.import;
    const path = typeof entry === "string" ? entry : entry?.default;
    if (path === undefined) continue;
    const api = (await import(pathToFileURL(join(dirname(pkgFile), path)).href)) as { tsImport?: TsImport };
    if (typeof api.tsImport === "function") return api.tsImport;
  }
  throw new InputError(`${file} is TypeScript and Node ${process.versions.node} does not strip types: install tsx next to it (npm install --save-dev tsx), or run on Node 22.18 or later`);
}

/** Loads an eval module; a load error becomes an {@link InputError} naming the user's file and line. */
export async function loadEvalModule(file: string): Promise<EvalModule> {
  const url = pathToFileURL(file).href;
  const load = TYPESCRIPT.test(file) && !nodeStripsTypes() ? await tsxImport(file) : undefined;
  let mod: EvalModule & { default?: EvalModule };
  try {
    mod = (await (load ? load(url, url) : import(url))) as EvalModule & { default?: EvalModule };
  } catch (err) {
    throw new InputError(`could not load ${file}${loadErrorText(err, file)}`);
  }
  // CommonJS: module.exports arrives as the default export (named ones only when Node can see them).
  return mod.task === undefined && mod.default && typeof mod.default === "object" ? mod.default : mod;
}

/**
 * `:line[:column]: Kind: message` of a load error, at the first place in the user's code that
 * the error names: the file itself (a syntax error's first line, or a stack frame), else the
 * first stack frame outside node's internals, `node_modules` and evaltrace's own dist.
 */
export function loadErrorText(err: unknown, file: string): string {
  const e = err instanceof Error ? err : new Error(String(err));
  const kind = e.name && e.name !== "Error" ? `${e.name}: ` : e instanceof Error ? "Error: " : "";
  const message = `${kind}${e.message.split("\n")[0]}`;
  const stack = String(e.stack ?? "");
  const url = pathToFileURL(file).href;
  const places = [...stack.matchAll(/(?:^|[\s(])(file:\/\/[^\s:()]+|\/[^\s:()]+):(\d+)(?::(\d+))?/gm)].map((m) => ({
    path: m[1]!.startsWith("file:") ? fileURLToPath(m[1]!) : m[1]!,
    line: m[2]!,
    column: m[3],
  }));
  // Bun's parse error (a BuildMessage) carries its place in `position`.
  const position = (err as { position?: { line?: unknown; column?: unknown } | null } | null)?.position;
  if (position && typeof position.line === "number") return `:${position.line}${typeof position.column === "number" ? `:${position.column}` : ""}: SyntaxError: ${e.message.split("\n")[0]}`;
  // esbuild (tsx) names the place in its message: "file.ts:3:11: ERROR: Unexpected ..."
  const inMessage = /:(\d+):(\d+): ERROR: (.*)/.exec(e.message);
  if (inMessage) return `:${inMessage[1]}:${inMessage[2]}: SyntaxError: ${inMessage[3]}`;
  const own = places.find((p) => p.path === file || pathToFileURL(p.path).href === url) ?? (e.name === "SyntaxError" ? checkedPlace(file) : undefined);
  const user = own ?? places.find((p) => !/[\\/]node_modules[\\/]|[\\/]packages[\\/]evaltrace[\\/]dist[\\/]/.test(p.path) && !p.path.startsWith("node:"));
  if (!user) return `: ${message}`;
  const where = user.path === file ? "" : ` (at ${relative(process.cwd(), user.path)})`;
  return user.path === file ? `:${user.line}${user.column ? `:${user.column}` : ""}: ${message}` : `: ${message}${where}:${user.line}`;
}

/**
 * Where `node --check` puts a syntax error of a JavaScript file: a dynamic import's SyntaxError
 * has no place in its stack (Node prints it only for an uncaught one). Run only on that error
 * path, in the CLI; undefined when it finds none.
 */
function checkedPlace(file: string): { path: string; line: string; column: undefined } | undefined {
  if (TYPESCRIPT.test(file)) return undefined;
  try {
    execFileSync(process.execPath, ["--check", file], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, encoding: "utf8" });
    return undefined;
  } catch (err) {
    const first = String((err as { stderr?: string }).stderr ?? "").split("\n")[0] ?? "";
    const m = /^(.*):(\d+)$/.exec(first);
    return m && (m[1] === file || m[1] === pathToFileURL(file).href) ? { path: file, line: m[2]!, column: undefined } : undefined;
  }
}
