import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { formats, runChild } from "../../helpers/child.js";
import { lastStats, spoolApp } from "./spool-app.js";

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
  it("SIGKILL while a replayed batch is in flight (stored, unanswered), then a restart on the same directory: every trace stored exactly once", async () => {
    const dir = spoolDir();
    const run = `kill-${format}`;
    const count = 3000;
    down = true;
    const a = runChild(format, spoolApp(format), { ...base(dir, run, count, 3000), QUEUE: "1000", RETRIES: "0", STAY: "1" });
    const out = track(a);
    await a.waitFor("produced");
    // Everything reaches the disk (the queue spills past 500, the failed requests go too).
    await until(() => lastStatsOr(out(), "stats")?.spooled === count, 30_000);
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
});

/** The stdout of a child so far (listened to from the start: call right after runChild). */
function track(child: ReturnType<typeof runChild>): () => string {
  let out = "";
  child.process.stdout!.on("data", (c: string) => (out += c));
  return () => out;
}

/** The last stats a child printed with `prefix`, or undefined before it printed any. */
function lastStatsOr(stdout: string, prefix: string): Record<string, number> | undefined {
  try {
    return lastStats(stdout, prefix);
  } catch {
    return undefined;
  }
}

async function until(check: () => boolean, timeoutMillis: number): Promise<void> {
  const end = Date.now() + timeoutMillis;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

