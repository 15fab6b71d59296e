import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SdkStats } from "../../../src/index.js";
import { expect } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { type Child, type Finished, type Format, load, packageRoot } from "../../helpers/child.js";

/**
 * The source of a child app that spools: it configures evaltrace with the spool in `DIR` (or
 * through EVALTRACE_SPOOL_DIR when `SPOOL_FROM_ENV` is set), then makes `COUNT` one-span traces
 * named `<RUN>-<i>` at `RATE` a second, prints `produced`, and, unless `STAY` is set, waits until
 * nothing is queued, in flight or spooled (or `DRAIN_MILLIS` passed) and prints
 * `done <stats JSON>`. With `STAY` it prints its stats every 200 ms and runs until killed. `WRITE_AHEAD`
 * turns on the spool's write-ahead mode, `INTERVAL` sets the batch interval (200 ms), and
 * `PROGRESS` prints `at <traces ended> <epoch ms>` after each 10 ms tick.
 */
export function spoolApp(format: Format): string {
  return `${load(format, "evaltrace", ["configure", "observe", "stats", "flush"])}
const env = process.env;
const spool = env.SPOOL_FROM_ENV ? undefined : { dir: env.DIR, ...(env.MAX_BYTES ? { maxBytes: Number(env.MAX_BYTES) } : {}), ...(env.WRITE_AHEAD ? { writeAhead: true } : {}) };
configure({
  apiKey: env.KEY, baseUrl: env.URL, logLevel: "warn", registerExitHooks: false,
  ...(spool ? { spool } : {}),
  maxRetries: Number(env.RETRIES ?? 5), initialRetryDelayMillis: 100, maxRetryDelayMillis: 1000,
  batch: { maxQueuedTraces: Number(env.QUEUE ?? 10000), flushIntervalMillis: Number(env.INTERVAL ?? 200) },
});
const count = Number(env.COUNT), rate = Number(env.RATE), run = env.RUN;
const per = Math.max(1, Math.round(rate / 100));
let i = 0;
await new Promise((resolve) => {
  const t = setInterval(() => {
    for (let k = 0; k < per && i < count; k++, i++) observe({ name: run + "-" + i }, (x) => x)(i);
    if (env.PROGRESS) console.log("at " + i + " " + Date.now());
    if (i >= count) { clearInterval(t); resolve(); }
  }, 10);
});
console.log("produced " + JSON.stringify(stats()));
if (env.STAY) {
  setInterval(() => console.log("stats " + JSON.stringify(stats())), 200);
} else {
  const until = Date.now() + Number(env.DRAIN_MILLIS ?? 120000);
  await flush(2000);
  for (;;) {
    const s = stats();
    if ((s.queued === 0 && s.inFlight === 0 && s.spooled === 0 && s.openTraces === 0) || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const r = await flush(5000);
  console.log("done " + JSON.stringify({ ...stats(), ok: r.ok, spooledAtFlush: r.spooled }));
}
`;
}

/** What a child prints: its `stats()`, and on `done` what its last flush said. */
export type ChildStats = SdkStats & { ok?: boolean; spooledAtFlush?: number };

/** The stats a child printed last on a line starting with `prefix`. */
export function lastStats(stdout: string, prefix: string): ChildStats {
  const lines = stdout.split("\n").filter((l) => l.startsWith(`${prefix} `));
  const last = lines[lines.length - 1];
  if (last === undefined) throw new Error(`no "${prefix}" line in: ${stdout.slice(-2000)}`);
  return JSON.parse(last.slice(prefix.length + 1)) as ChildStats;
}

/**
 * {@link runChild} under `sh -c "ulimit -f <blocks>"`: no file the app writes may grow past that
 * many blocks (512 bytes in dash, 1024 in bash), and Node ignores SIGXFSZ, so a write past it fails
 * with EFBIG, as one on a full disk fails with ENOSPC.
 */
export function runChildWithFileLimit(format: Format, source: string, env: Record<string, string>, blocks: number): Child {
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const args = format === "esm" ? ["--input-type=module", "-e", body] : ["-e", body];
  const child = spawn("/bin/sh", ["-c", `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, ...args], {
    cwd: packageRoot,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const finished = new Promise<Finished>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    process: child,
    finished,
    waitFor: async (text) => {
      while (!stdout.includes(text)) {
        const f = await Promise.race([finished, new Promise<undefined>((r) => setTimeout(() => r(undefined), 50))]);
        if (f !== undefined && !stdout.includes(text)) throw new Error(`child ended (${f.code ?? f.signal}) before printing ${text}; stderr: ${f.stderr}`);
      }
    },
  };
}

/** How many times each trace `<run>-<i>` is stored, by i. */
export function storedCountsIn(dev: DevServer, run: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const t of Object.values(dev.state.traces)) {
    const name = t.fields.name as string | undefined;
    if (!name?.startsWith(`${run}-`)) continue;
    const i = Number(name.slice(run.length + 1));
    counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  return counts;
}

/** Every trace `<run>-<i>` for i below `count` stored exactly once (and none twice). */
export function expectEachOnceIn(dev: DevServer, run: string, count: number): void {
  const counts = storedCountsIn(dev, run);
  const missing = [...Array(count).keys()].filter((i) => !counts.has(i));
  const twice = [...counts].filter(([, n]) => n !== 1);
  expect({ stored: counts.size, missing: missing.slice(0, 5), twice: twice.slice(0, 5) }).toEqual({ stored: count, missing: [], twice: [] });
}

/** The stdout of a child so far (listened to from the start: call right after runChild). */
export function track(child: Child): () => string {
  let out = "";
  child.process.stdout!.on("data", (c: string) => (out += c));
  return () => out;
}

/** The last stats a child printed with `prefix`, or undefined before it printed any. */
export function lastStatsOr(stdout: string, prefix: string): ChildStats | undefined {
  try {
    return lastStats(stdout, prefix);
  } catch {
    return undefined;
  }
}

export async function until(check: () => boolean, timeoutMillis: number, state: () => string = () => ""): Promise<void> {
  const end = Date.now() + timeoutMillis;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting; ${state().slice(-600)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


/**
 * The emulator (strict mode) behind a proxy that plays the outage: while `down`, every connection
 * is reset; `onStore`, when set, makes the next `POST /v1/traces` be stored, then runs (e.g. kills
 * the app) before its answer is dropped.
 */
export interface SpoolRig {
  dev: DevServer;
  proxy: FaultProxy;
  down: boolean;
  onStore: (() => Promise<void>) | undefined;
  /** A fresh spool directory, removed by close(). */
  spoolDir(): string;
  close(): Promise<void>;
}

export async function startSpoolRig(): Promise<SpoolRig> {
  const dev = await startDevServer({ port: 0, maxTraces: 400_000 });
  const dirs: string[] = [];
  const rig: SpoolRig = {
    dev,
    proxy: undefined as unknown as FaultProxy,
    down: false,
    onStore: undefined,
    spoolDir: () => {
      const d = mkdtempSync(join(tmpdir(), "evaltrace-spool-"));
      dirs.push(d);
      return d;
    },
    close: async () => {
      await rig.proxy.close();
      await dev.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  rig.proxy = await startFaultProxy(
    dev.url,
    (_n, req) => {
      if (rig.down) return "reset";
      if (rig.onStore !== undefined && req.method === "POST" && req.url === "/v1/traces") return "store-then-reset";
      return undefined;
    },
    {
      afterStore: async () => {
        const then = rig.onStore;
        rig.onStore = undefined;
        await then?.();
      },
    },
  );
  return rig;
}

/** The environment of {@link spoolApp} against the rig: `count` traces named `<run>-<i>` at `rate` a second, spooled in `dir`. */
export function appEnv(rig: SpoolRig, dir: string, run: string, count: number, rate: number): Record<string, string> {
  return { KEY: rig.dev.projectKey, URL: rig.proxy.url, DIR: dir, RUN: run, COUNT: String(count), RATE: String(rate) };
}
