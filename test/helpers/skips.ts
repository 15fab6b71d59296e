import { appendFileSync } from "node:fs";

/**
 * Whether a test file can run here; when it cannot, says why, once: on the console and in the
 * summary `npm test` prints at the end (test/helpers/skip-summary.ts), so nothing is skipped
 * silently. Use as `describe.skipIf(!runsHere(...))`.
 */
export function runsHere(available: boolean, file: string, reason: string): boolean {
  if (available) return true;
  const line = `${file}: ${reason}`;
  console.log(`skipped ${line}`);
  const summary = process.env.EVALTRACE_SKIPS_FILE;
  if (summary) {
    try {
      appendFileSync(summary, `${line}\n`);
    } catch {
      // The summary is a courtesy; the console line above stands.
    }
  }
  return false;
}

/** The runtime this process is, for skip reasons: "Node v20.20.2" or "Bun 1.4.5" (Bun reports a Node version of its own). */
export const runtimeName = process.versions.bun !== undefined ? `Bun ${process.versions.bun}` : `Node ${process.version}`;
