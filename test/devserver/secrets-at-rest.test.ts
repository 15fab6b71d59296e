import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";

// Issue 47, point 4: the --data journal holds the project and organization keys and every trace.
const posix = process.platform !== "win32";
const dirs: string[] = [];
let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "evaltrace-secrets-"));
  dirs.push(d);
  return d;
}
const mode = (path: string) => statSync(path).mode & 0o7777;
const t0 = "2026-01-01T00:00:00.000Z";
const trace = (uuid: string) => ({ uuid, name: "x", startTime: t0, endTime: t0, input: "pad ".repeat(2000), baseSpans: [{ uuid: `${uuid}-s`, name: "s", startTime: t0, endTime: t0 }] });

describe.skipIf(!posix)("the --data journal at rest", () => {
  it("is created 0600, and stays 0600 after compaction rewrote it", async () => {
    const file = join(tempDir(), "dev.jsonl");
    dev = await startDevServer({ port: 0, dataFile: file });
    expect(mode(file)).toBe(0o600);
    const headers = { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey };
    // The same trace rewritten many times: dead lines pile up until the journal is compacted.
    for (let i = 0; i < 40; i++) await fetch(`${dev.url}/v1/traces`, { method: "POST", headers, body: JSON.stringify(trace("same")) });
    await dev.close();
    dev = undefined;
    expect(mode(file)).toBe(0o600);
    expect(readdirSync(join(file, "..")).every((f) => mode(join(file, "..", f)) === 0o600)).toBe(true);
  });

  it("a journal an earlier version left 0644 is tightened to 0600 on start", async () => {
    const file = join(tempDir(), "old.jsonl");
    writeFileSync(file, "", { mode: 0o644 });
    chmodSync(file, 0o644);
    dev = await startDevServer({ port: 0, dataFile: file });
    expect(mode(file)).toBe(0o600);
  });

  it("refuses a --data that is a symbolic link, and leaves the file it points to alone", async () => {
    const dir = tempDir();
    const target = join(dir, "elsewhere.txt");
    writeFileSync(target, "not a journal\n");
    symlinkSync(target, join(dir, "link.jsonl"));
    await expect(startDevServer({ port: 0, dataFile: join(dir, "link.jsonl") })).rejects.toThrow(/symbolic link/);
    expect(statSync(target).size).toBe("not a journal\n".length);
  });

  it("refuses a data directory other users can write (a journal planted there would be trusted), unless it is sticky", async () => {
    for (const m of [0o777, 0o770, 0o722]) {
      const dir = join(tempDir(), "shared");
      mkdirSync(dir);
      chmodSync(dir, m);
      await expect(startDevServer({ port: 0, dataFile: join(dir, "dev.jsonl") }), m.toString(8)).rejects.toThrow(/other users can write/);
    }
    const sticky = join(tempDir(), "sticky");
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    dev = await startDevServer({ port: 0, dataFile: join(sticky, "dev.jsonl") });
    expect(mode(join(sticky, "dev.jsonl"))).toBe(0o600);
  });
});
