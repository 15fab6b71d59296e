import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The package root: children resolve `evaltrace` (the built dist/) through its exports map. */
export const packageRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The two module formats an app can load the SDK in. */
export const formats = ["esm", "cjs"] as const;
export type Format = (typeof formats)[number];

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Child {
  process: ChildProcess;
  /** Resolves with the first stdout line that contains `text`. */
  waitFor(text: string): Promise<void>;
  finished: Promise<Finished>;
}

/**
 * Runs `source` as an app would: `node --input-type=module -e` (ESM, top-level await allowed) or
 * `node -e` (CommonJS, the source wrapped in an async function). Only PATH and `env` are set, so
 * the test runner's own variables decide nothing.
 */
export function runChild(format: Format, source: string, env: Record<string, string> = {}): Child {
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const args = format === "esm" ? ["--input-type=module", "-e", body] : ["-e", body];
  const child = spawn(process.execPath, args, { cwd: packageRoot, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const w of [...waiters]) {
      if (stdout.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const finished = new Promise<Finished>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    process: child,
    finished,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.includes(text)) return resolve();
        waiters.push({ text, resolve });
        void finished.then((f) => reject(new Error(`child ended (${f.code ?? f.signal}) before printing ${JSON.stringify(text)}; stderr: ${f.stderr}`)));
      }),
  };
}

/** `import { a, b } from "spec"` or `const { a, b } = require("spec")`, for the format. */
export function load(format: Format, spec: string, names: string[]): string {
  return format === "esm" ? `import { ${names.join(", ")} } from "${spec}";` : `const { ${names.join(", ")} } = require("${spec}");`;
}

/**
 * Runs `source` under zero-code, as an app started with `node --import evaltrace/auto` (ESM) or
 * `node -r evaltrace/auto` (CommonJS, the source wrapped in an async function), with only PATH
 * and `env` set; resolves when it exits.
 */
export function runZeroCode(format: Format, source: string, env: Record<string, string>): Promise<Finished> {
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const args = format === "esm" ? ["--import", "evaltrace/auto", "--input-type=module", "-e", body] : ["-r", "evaltrace/auto", "-e", body];
  const child = spawn(process.execPath, args, { cwd: packageRoot, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/**
 * The environment that makes `packages` look uninstalled to a child's `require` (and so to the
 * SDK's lazy loads, from either build): see hide-packages.cjs.
 */
export function hidingPackages(...packages: string[]): Record<string, string> {
  return { NODE_OPTIONS: `--require ${JSON.stringify(fileURLToPath(new URL("./hide-packages.cjs", import.meta.url)))}`, EVALTRACE_TEST_HIDE: packages.join(",") };
}
