import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formats, runChild } from "../../helpers/child.js";
import { appEnv, expectEachOnceIn, lastStats, lastStatsOr, type SpoolRig, spoolApp, startSpoolRig, storedCountsIn, track, until } from "./spool-app.js";

// A crash (SIGKILL) during an outage, and in write-ahead mode mid-export: child processes on the
// built dist/ (run `npx tsup --silent` first), against the emulator in strict mode behind a
// proxy that plays the outage; then a second process on the same directory replays what the
// first left. The emulator stores a replayed batch once (its Idempotency-Key).
let rig: SpoolRig;
beforeAll(async () => {
  rig = await startSpoolRig();
});
afterAll(() => rig.close());

const segments = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".seg"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A second process on `dir`, the service up: it replays what the first left, then prints `done`. */
async function restart(format: (typeof formats)[number], dir: string, run: string) {
  rig.down = false;
  const b = runChild(format, spoolApp(format), { ...appEnv(rig, dir, `${run}-restart`, 0, 1) });
  const done = await b.finished;
  return lastStats(done.stdout, "done");
}

describe.each(formats)("a crash loses nothing (%s)", (format) => {
  it.each([
    ["default retries (maxRetries 5)", "5"],
    ["maxRetries 1,000,000: a failing batch is not held in memory for its retries", "1000000"],
  ])(
    "SIGKILL after 1 s of outage, %s: before the kill nothing is only in memory; after a restart on the same directory every trace is stored exactly once",
    async (_what, retries) => {
      const dir = rig.spoolDir();
      const run = `outage-kill-${retries}-${format}`;
      // 2,000 traces in half a second: below a quarter of maxQueuedTraces (10,000), and the
      // default batch interval (1 s), so that nothing but the outage sends them to disk.
      const count = 2000;
      rig.down = true;
      const a = runChild(format, spoolApp(format), { ...appEnv(rig, dir, run, count, 4000), STAY: "1", INTERVAL: "1000", RETRIES: retries });
      const out = track(a);
      await a.waitFor("produced");
      // The outage began before the first trace; the last trace ended a second before the kill.
      await sleep(1000);
      const before = lastStatsOr(out(), "stats");
      a.process.kill("SIGKILL");
      const killed = await a.finished;
      expect(killed.signal).toBe("SIGKILL");
      expect({ spoolMode: before?.spoolMode, onlyInMemory: before?.tracesOnlyInMemory, spooled: before?.spooled }).toEqual({
        spoolMode: "outage",
        onlyInMemory: 0,
        spooled: count,
      });
      const s = await restart(format, dir, run);
      expect({ replayed: s.tracesReplayed, spooled: s.spooled, spoolMode: s.spoolMode }).toEqual({ replayed: count, spooled: 0, spoolMode: "memory-first" });
      expectEachOnceIn(rig.dev, run, count);
      expect(segments(dir)).toEqual([]);
    },
    60_000,
  );

  it("write-ahead, the service up, SIGKILL mid-export (a batch stored, its answer not yet back): after a restart every trace that ended a batch interval before the kill is stored exactly once, none twice", async () => {
    const dir = rig.spoolDir();
    const run = `ahead-kill-${format}`;
    const interval = 200;
    rig.down = false;
    // Runs until killed: 2,000 traces a second, each tick's progress printed with its time.
    const a = runChild(format, spoolApp(format), { ...appEnv(rig, dir, run, 1_000_000, 2000), STAY: "1", WRITE_AHEAD: "1", PROGRESS: "1", INTERVAL: String(interval) });
    const out = track(a);
    await until(() => /^at (\d{4,}) /m.test(out()), 20_000, out);
    await sleep(500);
    let killedAt = 0;
    const killed = new Promise<void>((resolve) => {
      rig.onStore = async () => {
        killedAt = Date.now();
        a.process.kill("SIGKILL");
        await a.finished;
        resolve();
      };
    });
    await killed;
    const done = await a.finished;
    expect(done.signal).toBe("SIGKILL");
    // The traces that had ended a batch interval before the kill (by the app's own clock).
    let ended = 0;
    for (const m of done.stdout.matchAll(/^at (\d+) (\d+)$/gm)) if (Number(m[2]) <= killedAt - interval) ended = Math.max(ended, Number(m[1]));
    expect(ended).toBeGreaterThan(1000);
    const storedBefore = storedCountsIn(rig.dev, run).size;
    const s = await restart(format, dir, run);
    // The batch stored but unanswered was written ahead: replayed with its key, stored once.
    expect(s.tracesReplayed).toBeGreaterThan(0);
    const counts = storedCountsIn(rig.dev, run);
    const missing = [...Array(ended).keys()].filter((i) => !counts.has(i));
    const twice = [...counts].filter(([, n]) => n !== 1);
    expect({ missing: missing.slice(0, 5), twice: twice.slice(0, 5) }).toEqual({ missing: [], twice: [] });
    expect(counts.size).toBeGreaterThanOrEqual(storedBefore);
    expect(segments(dir)).toEqual([]);
  }, 60_000);
});
