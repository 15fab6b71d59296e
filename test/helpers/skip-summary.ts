import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Vitest global setup: collects the reasons test files give for not running here (see
 * `runsHere` in test/helpers/skips.ts) and prints them after the run, beside vitest's own count.
 */
export default function setup(): () => void {
  const file = join(tmpdir(), `evaltrace-skips-${process.pid}.log`);
  writeFileSync(file, "");
  process.env.EVALTRACE_SKIPS_FILE = file;
  return () => {
    const lines = existsSync(file) ? [...new Set(readFileSync(file, "utf8").split("\n").filter(Boolean))] : [];
    rmSync(file, { force: true });
    if (lines.length === 0) return;
    console.log(`\nNot run here (${lines.length}), and why:\n${lines.map((l) => `  - ${l}`).join("\n")}\n`);
  };
}
