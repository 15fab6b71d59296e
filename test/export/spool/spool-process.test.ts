import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { type Child, formats, runChild } from "../../helpers/child.js";
import { type ChildStats, lastStats, runChildWithFileLimit, spoolApp } from "./spool-app.js";

// Child processes on the built dist/ (run `npx tsup --silent` first), against the emulator in
// strict mode behind a proxy that plays the outage: while `down`, every connection is reset.
let dev: DevServer;
let proxy: FaultProxy;
let down = false;
/** Set to make the next POST /v1/traces be stored, then its answer dropped after this runs. */
let onStore: (() => Promise<void>) | undefined;
const dirs: string[] = [];

beforeAll(async () => {
  dev = await startDevServer({ port: 0, maxTraces: 400_000 });
  proxy = await startFaultProxy(
    dev.url,
    (_n, req) => {
      if (down) return "reset";
      if (onStore !== undefined && req.method === "POST" && req.url === "/v1/traces") return "store-then-reset";
      return undefined;
    },
    {
      afterStore: async () => {
        const then = onStore;
        onStore = undefined;
        await then?.();
      },
    },
  );
});
afterAll(async () => {
  await proxy.close();
  await dev.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function spoolDir(): string {
  const d = mkdtempSync(join(tmpdir(), "evaltrace-spool-"));
  dirs.push(d);
  return d;
}

/** How many times each trace `<run>-<i>` is stored, by i. */
function storedCounts(run: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const t of Object.values(dev.state.traces)) {
    const name = t.fields.name as string | undefined;
    if (!name?.startsWith(`${run}-`)) continue;
    const i = Number(name.slice(run.length + 1));
    counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  return counts;
}

function expectEachOnce(run: string, count: number): void {
  const counts = storedCounts(run);
  const missing = [...Array(count).keys()].filter((i) => !counts.has(i));
  const twice = [...counts].filter(([, n]) => n !== 1);
  expect({ stored: counts.size, missing: missing.slice(0, 5), twice: twice.slice(0, 5) }).toEqual({ stored: count, missing: [], twice: [] });
}

const base = (dir: string, run: string, count: number, rate: number): Record<string, string> => ({
  KEY: dev.projectKey,
  URL: proxy.url,
  DIR: dir,
  RUN: run,
  COUNT: String(count),
  RATE: String(rate),
});

const segments = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".seg"));

describe.each(formats)("the spool in a child process (%s)", (format) => {
  // The scenario in ESM (60 s at 2,000 traces a second: 120,000 traces, twelve times the
  // queue); a 10 s one in CommonJS, the same path in the other module format.
  const outageSeconds = format === "esm" ? 60 : 10;
  it(`a ${outageSeconds} s outage at 2,000 traces a second, then recovery: nothing lost, every trace stored exactly once, the spool emptied`, async () => {
    const dir = spoolDir();
    const run = `outage-${format}`;
    const count = outageSeconds * 2000;
    down = true;
    const app = runChild(format, spoolApp(format), { ...base(dir, run, count, 2000), DRAIN_MILLIS: "150000" });
    await app.waitFor("produced");
    down = false;
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
    down = true;
    const a = runChild(format, spoolApp(format), { ...base(dir, run, count, 3000), QUEUE: "4000", RETRIES: "0", STAY: "1" });
    const out = track(a);
    await a.waitFor("produced");
    // Everything reaches the disk (the queue spills past 1,000, the failed requests go too).
    await until(() => lastStatsOr(out(), "stats")?.spooled === count, 60_000, out);
    const killed = new Promise<void>((resolve) => {
      onStore = async () => {
        a.process.kill("SIGKILL");
        await a.finished;
        resolve();
      };
    });
    down = false;
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
    down = true;
    const children = runs.map((run) => runChild(format, spoolApp(format), { ...base(dir, run, count, 2000), QUEUE: "4000", RETRIES: "0" }));
    const outs = children.map(track);
    await Promise.all(children.map((c) => c.waitFor("produced")));
    await until(() => outs.every((o) => (lastStatsOr(o(), "produced")?.tracesDropped ?? -1) === 0), 5_000);
    // Both hold segments of their own, under locks of their own.
    await new Promise((r) => setTimeout(r, 1000));
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock"))).toHaveLength(2);
    down = false;
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
    down = true;
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
    down = false;
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
    down = true;
    // \`ulimit -f 2048\`: no file of this process may grow past 1 MiB (dash counts 512-byte
    // blocks; the segment would grow to 8 MiB): the write that crosses it is short, the next fails
    // with EFBIG (Node ignores SIGXFSZ), as on a full disk.
    const app = runChildWithFileLimit(format, spoolApp(format), { ...base(dir, run, count, 3000), QUEUE: "4000", RETRIES: "1" }, 2048);
    const out = track(app);
    await app.waitFor("produced");
    await until(() => (lastStatsOr(out(), "produced")?.tracesDropped ?? 0) > 0 || out().includes("done"), 10_000).catch(() => {});
    down = false;
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

/** The stdout of a child so far (listened to from the start: call right after runChild). */
function track(child: Child): () => string {
  let out = "";
  child.process.stdout!.on("data", (c: string) => (out += c));
  return () => out;
}

/** The last stats a child printed with `prefix`, or undefined before it printed any. */
function lastStatsOr(stdout: string, prefix: string): ChildStats | undefined {
  try {
    return lastStats(stdout, prefix);
  } catch {
    return undefined;
  }
}

async function until(check: () => boolean, timeoutMillis: number, state: () => string = () => ""): Promise<void> {
  const end = Date.now() + timeoutMillis;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting; ${state().slice(-600)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

