import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/clock.js";
import { TraceSpool } from "../../../src/export/spool/trace-spool.js";
import { noWorkYet } from "../../../src/export/types.js";
import type { Logger } from "../../../src/logger.js";

// Issue 47, point 4: segments hold whole trace bodies and are replayed with the app's key.
const posix = process.platform !== "win32";
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "evaltrace-spool-modes-"));
  dirs.push(d);
  return d;
}
const mode = (path: string) => statSync(path).mode & 0o7777;

function spoolIn(dir: string) {
  const warnings: string[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const spool = new TraceSpool({ dir, maxBytes: 1024 * 1024, fsync: "none", writeAhead: false }, noWorkYet(), async () => ({ kind: "retry", message: "down" }), systemClock, logger);
  return { spool, warnings };
}
const batch = new TextEncoder().encode(JSON.stringify({ traces: [{ uuid: "t", output: "secret" }] }));

describe.skipIf(!posix)("the spool's files at rest", () => {
  it("creates its directory 0700 and its segment and lock files 0600", async () => {
    const dir = join(tempDir(), "spool");
    const { spool } = spoolIn(dir);
    expect(await spool.write(batch, 1, "key")).toBe(true);
    expect(mode(dir)).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.some((f) => f.endsWith(".seg"))).toBe(true);
    for (const f of files) expect(mode(join(dir, f)), f).toBe(0o600);
    await spool.close();
  });

  it("refuses a directory other users can write (a planted segment would be replayed with the app's key): one warning, nothing written", async () => {
    for (const m of [0o777, 0o1777, 0o770]) {
      const dir = join(tempDir(), "shared");
      mkdirSync(dir);
      chmodSync(dir, m);
      const { spool, warnings } = spoolIn(dir);
      expect(await spool.write(batch, 1, "key"), m.toString(8)).toBe(false);
      expect(warnings.join("\n")).toContain("other users can write the spool directory");
      expect(readdirSync(dir)).toEqual([]);
      await spool.close();
    }
  });
});
