import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/clock.js";
import { noWorkYet } from "../../../src/export/types.js";
import { inspectSpool } from "../../../src/index.js";
import { encodeRecord } from "../../../src/export/spool/format.js";
import type { ReplayOutcome } from "../../../src/export/spool/replay.js";
import { Spool } from "../../../src/export/spool/spool.js";
import { TraceSpool } from "../../../src/export/spool/trace-spool.js";
import type { Logger } from "../../../src/logger.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "evaltrace-spool-unit-"));
  dirs.push(d);
  return d;
}

function logger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => {}, info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

/** A spool whose replays go to `answer` (by default: the service does not answer). */
function spoolIn(dir: string, maxBytes = 1024 * 1024, answer: (body: string, key: string) => ReplayOutcome = () => ({ kind: "retry", message: "down" })) {
  const counters = noWorkYet();
  const log = logger();
  const sent: { body: string; key: string }[] = [];
  const spool = new TraceSpool(
    { dir, maxBytes, fsync: "rotate", writeAhead: false },
    counters,
    async (body, key) => {
      const text = new TextDecoder().decode(body);
      const outcome = answer(text, key);
      if (outcome.kind === "ok") sent.push({ body: text, key });
      return outcome;
    },
    systemClock,
    log,
  );
  return { spool, counters, log, sent };
}

const batch = (i: number, size = 100) => new TextEncoder().encode(JSON.stringify({ traces: [{ i, pad: "x".repeat(size) }] }));
const segs = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".seg"));

describe("the spool on disk", () => {
  it("replays what it wrote in order, each batch with the key it was written with, then deletes its segments", async () => {
    const dir = tempDir();
    let up = false;
    const { spool, counters, sent } = spoolIn(dir, 1024 * 1024, () => (up ? { kind: "ok" } : { kind: "retry", message: "down" }));
    for (let i = 0; i < 5; i++) expect(await spool.write(batch(i), 2, `key-${i}`)).toBe(true);
    expect({ traces: spool.traces, spooled: counters.tracesSpooled, segments: segs(dir).length }).toEqual({ traces: 10, spooled: 10, segments: 1 });
    up = true;
    await spool.drain(5000);
    expect(sent.map((s) => s.key)).toEqual(["key-0", "key-1", "key-2", "key-3", "key-4"]);
    expect(sent.map((s) => (JSON.parse(s.body) as { traces: { i: number }[] }).traces[0]!.i)).toEqual([0, 1, 2, 3, 4]);
    expect({ traces: spool.traces, replayed: counters.tracesReplayed, segments: segs(dir) }).toEqual({ traces: 0, replayed: 10, segments: [] });
    await spool.close();
  });

  it("maxBytes: the oldest segments are dropped and counted to make room, never the newest", async () => {
    const dir = tempDir();
    // 64 KiB: segments of 64 KiB (the least), each batch ~2 KiB.
    const { spool, counters, log } = spoolIn(dir, 65_536);
    for (let i = 0; i < 100; i++) await spool.write(batch(i, 2000), 1, `k${i}`);
    expect(spool.bytes).toBeLessThanOrEqual(65_536);
    expect(counters.tracesDroppedFromSpool).toBeGreaterThan(0);
    expect(counters.tracesDroppedFromSpool + spool.traces).toBe(100);
    expect(log.warnings.some((w) => w.includes("dropped from the spool to stay within maxBytes=65536"))).toBe(true);
    const info = await inspectSpool(dir);
    expect({ traces: info.traces, live: info.lockedByLiveProcess }).toEqual({ traces: spool.traces, live: true });
    await spool.close();
  });

  // A read-only directory or one without permission cannot be made here (the tests may run as
  // root, which ignores permissions): a name the file system refuses fails the same mkdir.
  it("a directory it cannot make (the file system refuses it, as a read-only one does): one warning, write() says false, nothing thrown", async () => {
    const { spool, log } = spoolIn(join(tempDir(), "x".repeat(300)));
    expect(await spool.write(batch(1), 1, "k")).toBe(false);
    expect(await spool.write(batch(2), 1, "k")).toBe(false);
    expect(spool.accepting).toBe(false);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toMatch(/spool: disk error .*ENAMETOOLONG/);
  });

  it("a path that is a file, not a directory: one warning, write() says false", async () => {
    const file = join(tempDir(), "not-a-dir");
    writeFileSync(file, "x");
    const { spool, log } = spoolIn(join(file, "spool"));
    expect(await spool.write(batch(1), 1, "k")).toBe(false);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toContain("ENOTDIR");
  });

  it("the directory deleted under it: what it held is counted lost, one warning, write() says false from then on", async () => {
    const dir = tempDir();
    const { spool, counters, log } = spoolIn(dir);
    expect(await spool.write(batch(1), 3, "k1")).toBe(true);
    rmSync(dir, { recursive: true, force: true });
    expect(await spool.write(batch(2), 4, "k2")).toBe(false);
    expect(await spool.write(batch(3), 5, "k3")).toBe(false);
    expect(counters.tracesDroppedFromSpool).toBe(3);
    expect(log.warnings.filter((w) => w.includes("spool: disk error"))).toHaveLength(1);
    await spool.close();
  });
  it("while 32 MiB are being written: a new batch from the queue is refused, the body of a failed request (already in memory) is taken and written", async () => {
    const dir = tempDir();
    const spool = new Spool({ dir, maxBytes: 512 * 1024 * 1024, fsync: "rotate", writeAhead: false }, noWorkYet(), systemClock, logger());
    const busy = spool.write(new Uint8Array(33 * 1024 * 1024).fill(120), 1, "big");
    expect(spool.accepting).toBe(false);
    const fromQueue = spool.write(batch(2), 1, "queued");
    const failedRequest = spool.write(batch(3), 1, "failed", true);
    expect([await busy, await fromQueue, await failedRequest]).toEqual([true, false, true]);
    expect(spool.traces).toBe(2);
    await spool.close();
  });

  it("a damaged record's traces are counted in tracesDroppedFromSpool when its segment is done, the others replayed", async () => {
    const dir = tempDir();
    let up = false;
    const { spool, counters, log, sent } = spoolIn(dir, 1024 * 1024, () => (up ? { kind: "ok" } : { kind: "retry", message: "down" }));
    expect(await spool.write(batch(1), 3, "k1")).toBe(true);
    expect(await spool.write(batch(2), 4, "k2")).toBe(true);
    const [file] = segs(dir);
    const bytes = readFileSync(join(dir, file!));
    // A byte of the first record's body flipped: its checksum no longer matches.
    bytes[Math.floor(bytes.length / 2) - 5]! ^= 0xff;
    writeFileSync(join(dir, file!), bytes);
    up = true;
    await spool.drain(5000);
    expect(sent.map((s) => s.key)).toEqual(["k2"]);
    expect({ replayed: counters.tracesReplayed, dropped: counters.tracesDroppedFromSpool, corrupt: counters.spoolRecordsCorrupt, left: spool.traces }).toEqual({ replayed: 4, dropped: 3, corrupt: 1, left: 0 });
    expect(log.warnings.some((w) => w.includes("3 trace(s) in damaged records"))).toBe(true);
    await spool.close();
  });
});

describe("the spool's locks", () => {

  it("the lock of a process of this host that is gone with nothing spooled is removed at start; a lock of another host stays", async () => {
    const dir = tempDir();
    const host = (await import("node:os")).hostname();
    writeFileSync(join(dir, "deadtoken02.lock"), JSON.stringify({ pid: 2 ** 22 + 19, host, token: "deadtoken02", at: 0 }));
    writeFileSync(join(dir, "otherhost02.lock"), JSON.stringify({ pid: 1, host: "another-host", token: "otherhost02", at: 0 }));
    const { spool } = spoolIn(dir);
    await spool.drain(1000);
    const locks = () => readdirSync(dir).filter((f) => f.endsWith(".lock"));
    expect(locks()).not.toContain("deadtoken02.lock");
    expect(locks()).toContain("otherhost02.lock");
    expect(locks()).toHaveLength(2);
    await spool.close();
    expect(locks()).toEqual(["otherhost02.lock"]);
  });

  it("a spool that failed after taking its lock removes the lock when closed", async () => {
    const dir = tempDir();
    const spool = new Spool({ dir, maxBytes: 1024 * 1024, fsync: "rotate", writeAhead: false }, noWorkYet(), systemClock, logger());
    expect(await spool.write(batch(1), 1, "k1")).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock"))).toHaveLength(1);
    spool.fail(Object.assign(new Error("disk error"), { code: "EIO" }));
    await spool.close();
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock"))).toEqual([]);
    expect(segs(dir)).toHaveLength(1);
  });

  it("a segment claimed while one is being written goes before it, by age: the next write appends to the open one and close() closes every handle", async () => {
    const dir = tempDir();
    const spool = new Spool({ dir, maxBytes: 1024 * 1024, fsync: "rotate", writeAhead: false }, noWorkYet(), systemClock, logger());
    expect(await spool.write(batch(1), 1, "mine-1")).toBe(true);
    // A process gone without a lock left an older segment.
    writeFileSync(join(dir, "0000000aa-000000-orphantok02@orphantok02.seg"), encodeRecord({ k: "orphan-1", n: 2, t: Date.now() - 5000 }, batch(0)));
    await spool.rescan(true);
    expect(await spool.write(batch(2), 1, "mine-2")).toBe(true);
    expect(spool.segments.map((s) => s.name.origin === "orphantok02")).toEqual([true, false]);
    expect(spool.segments.map((s) => s.traces)).toEqual([2, 2]);
    expect(segs(dir)).toHaveLength(2);
    const handles = spool.segments.flatMap((s) => (s.handle ? [s.handle] : []));
    expect(handles).toHaveLength(1);
    await spool.close();
    expect(spool.segments.every((s) => s.handle === undefined)).toBe(true);
    expect(handles.map((h) => h.fd)).toEqual([-1]);
  });
  it("two spools of one directory (two processes' worth) never take each other's segments while both run", async () => {
    const dir = tempDir();
    const a = spoolIn(dir, 1024 * 1024, () => ({ kind: "ok" }));
    const b = spoolIn(dir, 1024 * 1024, () => ({ kind: "ok" }));
    await a.spool.write(batch(1), 1, "a1");
    await b.spool.write(batch(2), 1, "b1");
    await Promise.all([a.spool.drain(5000), b.spool.drain(5000)]);
    expect(a.sent.map((s) => s.key)).toEqual(["a1"]);
    expect(b.sent.map((s) => s.key)).toEqual(["b1"]);
    await Promise.all([a.spool.close(), b.spool.close()]);
  });

  it("segments of a process that is gone (its pid runs no more) are claimed and replayed; a lock of another host is left alone", async () => {
    const dir = tempDir();
    const record = (k: string) => encodeRecord({ k, n: 2, t: Date.now() - 5000 }, batch(0));
    // A dead process of this host, and a live one (as far as we can tell) of another.
    writeFileSync(join(dir, "deadtoken01.lock"), JSON.stringify({ pid: 2 ** 22 + 17, host: (await import("node:os")).hostname(), token: "deadtoken01", at: 0 }));
    writeFileSync(join(dir, "0000000aa-000000-deadtoken01@deadtoken01.seg"), record("dead-1"));
    writeFileSync(join(dir, "otherhost01.lock"), JSON.stringify({ pid: 1, host: "another-host", token: "otherhost01", at: 0 }));
    writeFileSync(join(dir, "0000000ab-000000-otherhost01@otherhost01.seg"), record("other-1"));
    // A segment whose lock is gone altogether: an orphan.
    writeFileSync(join(dir, "0000000ac-000000-orphantok01@orphantok01.seg"), record("orphan-1"));
    const before = await inspectSpool(dir);
    expect({ files: before.files, traces: before.traces, live: before.owners.map((o) => o.live).sort() }).toEqual({ files: 3, traces: 6, live: [false, true] });
    expect(before.oldestRecordAgeMillis).toBeGreaterThanOrEqual(4000);
    const { spool, sent, counters } = spoolIn(dir, 1024 * 1024, () => ({ kind: "ok" }));
    await spool.drain(5000);
    expect(sent.map((s) => s.key)).toEqual(["dead-1", "orphan-1"]);
    expect(counters.tracesReplayed).toBe(4);
    expect(existsSync(join(dir, "deadtoken01.lock"))).toBe(false);
    expect(segs(dir)).toEqual(["0000000ab-000000-otherhost01@otherhost01.seg"]);
    await spool.close();
  });
});
