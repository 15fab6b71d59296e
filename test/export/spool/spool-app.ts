import { spawn } from "node:child_process";
import type { SdkStats } from "../../../src/index.js";
import { type Child, type Finished, type Format, load, packageRoot } from "../../helpers/child.js";

/**
 * The source of a child app that spools: it configures evaltrace with the spool in `DIR` (or
 * through EVALTRACE_SPOOL_DIR when `SPOOL_FROM_ENV` is set), then makes `COUNT` one-span traces
 * named `<RUN>-<i>` at `RATE` a second, prints `produced`, and, unless `STAY` is set, waits until
 * nothing is queued, in flight or spooled (or `DRAIN_MILLIS` passed) and prints
 * `done <stats JSON>`. With `STAY` it prints its stats every 200 ms and runs until killed.
 */
export function spoolApp(format: Format): string {
  return `${load(format, "evaltrace", ["configure", "observe", "stats", "flush"])}
const env = process.env;
const spool = env.SPOOL_FROM_ENV ? undefined : { dir: env.DIR, ...(env.MAX_BYTES ? { maxBytes: Number(env.MAX_BYTES) } : {}) };
configure({
  apiKey: env.KEY, baseUrl: env.URL, logLevel: "warn", registerExitHooks: false,
  ...(spool ? { spool } : {}),
  maxRetries: Number(env.RETRIES ?? 5), initialRetryDelayMillis: 100, maxRetryDelayMillis: 1000,
  batch: { maxQueuedTraces: Number(env.QUEUE ?? 10000), flushIntervalMillis: 200 },
});
const count = Number(env.COUNT), rate = Number(env.RATE), run = env.RUN;
const per = Math.max(1, Math.round(rate / 100));
let i = 0;
await new Promise((resolve) => {
  const t = setInterval(() => {
    for (let k = 0; k < per && i < count; k++, i++) observe({ name: run + "-" + i }, (x) => x)(i);
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
