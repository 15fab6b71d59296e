import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { doctor } from "../../src/doctor/index.js";
import { encodeRecord } from "../../src/export/spool/format.js";
import { segmentFile } from "../../src/export/spool/lock.js";

// The spool check with no inspector given: evaltrace's own inspectSpool on real spool files
// (records framed by the spool's own encoder, in a segment named as the spool names them).
const spoolFindings = async (spoolDir: string) => (await doctor({ timeoutMillis: 300, spoolDir, baseUrl: "http://127.0.0.1:9" })).findings.filter((f) => f.check === "spool");

/** After what the directory holds, the mode (no runtime here: the mode configured). */
const modeFinding = expect.objectContaining({ ok: true, severity: "info", message: expect.stringContaining("the spool is in mode memory-first as configured") });

function segment(dir: string, spooledAt: number, traces: number): void {
  const body = new TextEncoder().encode(JSON.stringify({ traces: [] }));
  const record = encodeRecord({ k: "key-1", n: traces, t: spooledAt }, body);
  const time = spooledAt.toString(36).padStart(9, "0");
  writeFileSync(join(dir, segmentFile({ time, seq: "000001", origin: "aaaaaaaaaaaa", owner: "bbbbbbbbbbbb" })), record);
}

describe("doctor(): the spool check reads a real spool directory with inspectSpool", () => {
  it("a directory not made yet is an empty spool: ok", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "et-doc-spool-")), "not-yet");
    expect(await spoolFindings(dir)).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("is empty") }), modeFinding]);
  });

  it("records spooled a minute ago: ok, draining, with their trace count", async () => {
    const dir = mkdtempSync(join(tmpdir(), "et-doc-spool-"));
    segment(dir, Date.now() - 60_000, 7);
    expect(await spoolFindings(dir)).toEqual([expect.objectContaining({ ok: true, message: expect.stringMatching(/holds 7 trace\(s\).*draining/) }), modeFinding]);
  });

  it("records spooled two hours ago with no process holding them: not ok, not draining, the fix says to start the app", async () => {
    const dir = mkdtempSync(join(tmpdir(), "et-doc-spool-"));
    segment(dir, Date.now() - 2 * 3_600_000, 3);
    const [finding] = await spoolFindings(dir);
    expect(finding).toMatchObject({ ok: false, severity: "warning", message: expect.stringContaining("is not draining: 3 trace(s)") });
    expect(finding?.fix).toMatch(/no process is delivering it/);
  });

  it("a path that exists but is not a directory: an error, a file and not a directory, spooling off", async () => {
    const base = mkdtempSync(join(tmpdir(), "et-doc-spool-"));
    const file = join(base, "a-file");
    mkdirSync(base, { recursive: true });
    writeFileSync(file, "x");
    expect(await spoolFindings(file)).toEqual([expect.objectContaining({ ok: false, severity: "error", message: `the spool path ${file} is a file, not a directory: spooling will be off` })]);
  });
});
