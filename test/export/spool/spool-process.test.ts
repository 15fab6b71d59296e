import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formats, runChild } from "../../helpers/child.js";
import { appEnv, expectEachOnceIn, lastStats, lastStatsOr, runChildWithFileLimit, type SpoolRig, spoolApp, startSpoolRig, storedCountsIn, track, until } from "./spool-app.js";

// Child processes on the built dist/ (run `npx tsup --silent` first), against the emulator in
// strict mode behind a proxy that plays the outage (spool-app.ts's rig).
let rig: SpoolRig;
beforeAll(async () => {
  rig = await startSpoolRig();
});
afterAll(() => rig.close());
const spoolDir = () => rig.spoolDir();

const storedCounts = (run: string) => storedCountsIn(rig.dev, run);
const expectEachOnce = (run: string, count: number) => expectEachOnceIn(rig.dev, run, count);

const base = (dir: string, run: string, count: number, rate: number) => appEnv(rig, dir, run, count, rate);

const segments = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".seg"));

describe.each(formats)("the spool in a child process (%s)", (format) => {
  // The scenario in ESM (60 s at 2,000 traces a second: 120,000 traces, twelve times the
  // queue); a 10 s one in CommonJS, the same path in the other module format.
  const outageSeconds = format === "esm" ? 60 : 10;
  it(`a ${outageSeconds} s outage at 2,000 traces a second, then recovery: nothing lost, every trace stored exactly once, the spool emptied`, async () => {
    const dir = spoolDir();
    const run = `outage-${format}`;
    const count = outageSeconds * 2000;
    rig.down = true;
    const app = runChild(format, spoolApp(format), { ...base(dir, run, count, 2000), DRAIN_MILLIS: "150000" });
    await app.waitFor("produced");
    rig.down = false;
    const done = await app.finished;
    const s = lastStats(done.stdout, "done");
    const produced = lastStats(done.stdout, "produced");
    expect(produced.tracesSpooled).toBeGreaterThan(count / 2);
    expect({ dropped: s.tracesDropped, failed: s.tracesFailed, droppedFromSpool: s.tracesDroppedFromSpool, spooled: s.spooled, flushOk: s.ok }).toEqual({
      dropped: 0,
      failed: 0,
      droppedFromSpool: 0,
      spooled: 0,
      flushOk: true,
    });
    expect(s.tracesReplayed).toBe(s.tracesSpooled);
    expect(s.tracesDelivered + s.tracesReplayed).toBe(count);
    expectEachOnce(run, count);
    expect(segments(dir)).toEqual([]);
  }, 240_000);

  it("SIGKILL while a replayed batch is in flight (stored, unanswered), then a restart on the same directory: every trace stored exactly once", async () => {
    const dir = spoolDir();
    const run = `kill-${format}`;
    const count = 3000;
    rig.down = true;
    const a = runChild(format, spoolApp(format), { ...base(dir, run, count, 3000), QUEUE: "4000", RETRIES: "0", STAY: "1" });
    const out = track(a);
    await a.waitFor("produced");
    // Everything reaches the disk (the queue spills past 1,000, the failed requests go too).
    await until(() => lastStatsOr(out(), "stats")?.spooled === count, 60_000, out);
    const killed = new Promise<void>((resolve) => {
      rig.onStore = async () => {
        a.process.kill("SIGKILL");
        await a.finished;
        resolve();
      };
    });
    rig.down = false;
    await killed;
    const done = await a.finished;
    expect(done.signal).toBe("SIGKILL");
    expect(segments(dir).length).toBeGreaterThan(0);
    const before = storedCounts(run).size;
    expect(before).toBeGreaterThan(0);
    const b = runChild(format, spoolApp(format), { ...base(dir, `${run}-b`, 0, 1) });
    const finished = await b.finished;
    const s = lastStats(finished.stdout, "done");
    expect(s.spooled).toBe(0);
    expect(s.tracesReplayed).toBe(count);
    expectEachOnce(run, count);
    expect(segments(dir)).toEqual([]);
  }, 90_000);

  it("two processes spooling into one directory at once: each replays its own segments, every trace stored exactly once", async () => {
    const dir = spoolDir();
    const runs = [`two-a-${format}`, `two-b-${format}`];
    const count = 2000;
    rig.down = true;
    const children = runs.map((run) => runChild(format, spoolApp(format), { ...base(dir, run, count, 2000), QUEUE: "4000", RETRIES: "0" }));
    const outs = children.map(track);
    await Promise.all(children.map((c) => c.waitFor("produced")));
    await until(() => outs.every((o) => (lastStatsOr(o(), "produced")?.tracesDropped ?? -1) === 0), 5_000);
    // Both hold segments of their own, under locks of their own.
    await new Promise((r) => setTimeout(r, 1000));
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock"))).toHaveLength(2);
    rig.down = false;
    const done = await Promise.all(children.map((c) => c.finished));
    for (const [k, d] of done.entries()) {
      const s = lastStats(d.stdout, "done");
      expect({ spooled: s.spooled, dropped: s.tracesDropped, replayedOwn: s.tracesReplayed === s.tracesSpooled, delivered: s.tracesDelivered + s.tracesReplayed }).toEqual({
        spooled: 0,
        dropped: 0,
        replayedOwn: true,
        delivered: count,
      });
      expectEachOnce(runs[k]!, count);
    }
    // (The lock files of the two processes stay: they exited without shutdown(); the next process with the directory removes them.)
    expect(segments(dir)).toEqual([]);
  }, 90_000);

  it("a damaged record and a truncated tail in a spool left by a killed process: both skipped and counted, every other record replayed", async () => {
    const dir = spoolDir();
    const run = `corrupt-${format}`;
    const count = 3000;
    rig.down = true;
    const a = runChild(format, spoolApp(format), { ...base(dir, run, count, 3000), QUEUE: "4000", RETRIES: "0", STAY: "1" });
    const out = track(a);
    await a.waitFor("produced");
    await until(() => lastStatsOr(out(), "stats")?.spooled === count, 60_000, out);
    a.process.kill("SIGKILL");
    await a.finished;
    const segs = segments(dir).sort();
    expect(segs.length).toBeGreaterThan(0);
    // One byte flipped in the middle of the first record's body, and the last segment cut mid-record.
    const first = join(dir, segs[0]!);
    const bytes = readFileSync(first);
    bytes[200] = bytes[200]! ^ 0xff;
    writeFileSync(first, bytes);
    const last = join(dir, segs[segs.length - 1]!);
    truncateSync(last, statSync(last).size - 100);
    rig.down = false;
    const b = runChild(format, spoolApp(format), { ...base(dir, `${run}-b`, 0, 1) });
    const s = lastStats((await b.finished).stdout, "done");
    expect(s.spoolRecordsCorrupt).toBe(2);
    expect(s.spooled).toBe(0);
    // What the two damaged records held is all that is missing.
    const stored = storedCounts(run);
    expect([...stored.values()].every((n) => n === 1)).toBe(true);
    expect(stored.size).toBe(s.tracesReplayed);
    expect(count - stored.size).toBeGreaterThan(0);
    // A record holds at most a request's spans: 1,000 one-span traces.
    expect(count - stored.size).toBeLessThanOrEqual(2 * 1000);
    expect(segments(dir)).toEqual([]);
  }, 90_000);

  it("a disk that fills up (a file-size limit: a short write, then EFBIG): one warning, then as without a spool, every trace delivered or counted", async () => {
    const dir = spoolDir();
    const run = `full-${format}`;
    const count = 6000;
    rig.down = true;
    // \`ulimit -f 2048\`: no file of this process may grow past 1 MiB (dash counts 512-byte
    // blocks; the segment would grow to 8 MiB): the write that crosses it is short, the next fails
    // with EFBIG (Node ignores SIGXFSZ), as on a full disk.
    const app = runChildWithFileLimit(format, spoolApp(format), { ...base(dir, run, count, 3000), QUEUE: "4000", RETRIES: "1" }, 2048);
    const out = track(app);
    await app.waitFor("produced");
    await until(() => (lastStatsOr(out(), "produced")?.tracesDropped ?? 0) > 0 || out().includes("done"), 10_000).catch(() => {});
    rig.down = false;
    const done = await app.finished;
    const s = lastStats(done.stdout, "done");
    const warnings = done.stderr.split("\n").filter((l) => l.includes("spool: disk error"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ENOSPC|EFBIG/);
    expect(s.tracesSpooled).toBeGreaterThan(0);
    expect(s.tracesDelivered + s.tracesReplayed + s.tracesDropped + s.tracesFailed + s.tracesDroppedFromSpool).toBe(count);
    expect(s.tracesDropped + s.tracesFailed).toBeGreaterThan(0);
    const stored = storedCounts(run);
    expect([...stored.values()].every((n) => n === 1)).toBe(true);
    expect(stored.size).toBe(s.tracesDelivered + s.tracesReplayed);
  }, 90_000);
});
