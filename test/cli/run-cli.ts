import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The CLI as users run it: bin/evaltrace.mjs over the built dist (npm test builds it first). */
export const bin = fileURLToPath(new URL("../../packages/evaltrace/bin/evaltrace.mjs", import.meta.url));

/** What one run of the CLI printed and how it exited. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI to its end without blocking this process (an emulator in this process can answer
 * it). `env` replaces the variables named in it; `undefined` removes one.
 */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: merged, encoding: "utf8", timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Whether text holds a JavaScript stack trace ("    at fn (file:1:2)"). */
export const hasStack = (text: string): boolean => /^\s+at .+[:(]/m.test(text);
