import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { configure, flush, observe, shutdown, stats } from "../../../src/index.js";
import { type Fault, type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";
import { memoryLogger } from "../../helpers/sdk.js";

// The spool's modes in this process, against the emulator behind a proxy: memory-first (the
// default), outage (after a request the service did not answer), write-ahead (opt-in).
let dev: DevServer;
let proxy: FaultProxy;
/** The fault for each POST /v1/traces, by its order (undefined: forwarded). */
let faultFor: (n: number) => Fault | undefined = () => undefined;
/** Per POST /v1/traces: its Idempotency-Key, and how many segment files the spool held when it arrived. */
let posts: { key: string; segments: number }[] = [];
let dir = "";
const dirs: string[] = [];

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  proxy = await startFaultProxy(dev.url, (_n, req) => {
    if (req.method !== "POST" || req.url !== "/v1/traces") return undefined;
    posts.push({ key: String(req.headers["idempotency-key"]), segments: segmentsIn(dir).length });
    return faultFor(posts.length - 1);
  });
});
afterEach(async () => {
  await shutdown(2000);
  posts = [];
  faultFor = () => undefined;
});
afterAll(async () => {
  await proxy.close();
  await dev.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function segmentsIn(d: string): string[] {
  try {
    return readdirSync(d).filter((f) => f.endsWith(".seg"));
  } catch {
    return [];
  }
}

function setup(spool: { writeAhead?: boolean } = {}) {
  dir = mkdtempSync(join(tmpdir(), "evaltrace-spool-mode-"));
  dirs.push(dir);
  const logger = memoryLogger();
  configure({ apiKey: dev.projectKey, baseUrl: proxy.url, logger, registerExitHooks: false, spool: { dir, ...spool }, batch: { flushIntervalMillis: 50 } });
  return logger;
}

async function until(check: () => boolean): Promise<void> {
  for (const end = Date.now() + 1500; !check() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
}

const traced = (n: number, name: string) => {
  for (let i = 0; i < n; i++) observe({ name: `${name}-${i}` }, () => i)();
};

it("memory-first while the service answers: nothing written, stats() says memory-first and nothing only in memory once delivered", async () => {
  setup();
  expect(stats().spoolMode).toBe("memory-first");
  traced(20, "mf");
  const r = await flush(5000);
  expect({ ok: r.ok, delivered: r.delivered, spoolMode: stats().spoolMode, onlyInMemory: stats().tracesOnlyInMemory, spooled: stats().tracesSpooled }).toEqual({
    ok: true,
    delivered: 20,
    spoolMode: "memory-first",
    onlyInMemory: 0,
    spooled: 0,
  });
  expect(posts.every((p) => p.segments === 0)).toBe(true);
});

it("a 503 to one request: that batch is spooled after its first attempt (one POST, no retry from memory), the mode is outage, and its replay carries the same Idempotency-Key; the next answer ends the outage", async () => {
  const logger = setup();
  faultFor = (n) => (n === 0 ? "503" : undefined);
  traced(5, "blip");
  // (No flush() here: a flush replays the spool at once.)
  await until(() => stats().tracesSpooled === 5);
  expect({ posts: posts.length, spoolMode: stats().spoolMode, spooled: stats().tracesSpooled }).toEqual({ posts: 1, spoolMode: "outage", spooled: 5 });
  // While in the outage, new traces go to the spool, not to a request.
  traced(3, "during");
  await new Promise((r) => setTimeout(r, 700));
  expect(stats().tracesSpooled).toBe(8);
  const r = await flush(8000);
  expect({ ok: r.ok, spooled: r.spooled, replayed: stats().tracesReplayed, spoolMode: stats().spoolMode }).toEqual({ ok: true, spooled: 0, replayed: 8, spoolMode: "memory-first" });
  // The replay of the first batch went with the key its failed request had.
  expect(posts.filter((p) => p.key === posts[0]!.key)).toHaveLength(2);
  expect(logger.lines.some((l) => l.startsWith("info: spool: the service answers again"))).toBe(true);
});

it("write-ahead: each batch's segment is on disk when its request arrives, and deleted once answered; stats() says write-ahead", async () => {
  setup({ writeAhead: true });
  expect(stats().spoolMode).toBe("write-ahead");
  traced(30, "wa");
  const r = await flush(5000);
  expect({ ok: r.ok, delivered: r.delivered, spooled: stats().tracesSpooled, onlyInMemory: stats().tracesOnlyInMemory }).toEqual({ ok: true, delivered: 30, spooled: 0, onlyInMemory: 0 });
  expect(posts.length).toBeGreaterThan(0);
  expect(posts.every((p) => p.segments >= 1)).toBe(true);
  await new Promise((r) => setTimeout(r, 100));
  expect(segmentsIn(dir)).toEqual([]);
});

it("write-ahead, the service down for one request: the batch written ahead is kept as spooled (not written twice) and replayed with its key", async () => {
  setup({ writeAhead: true });
  faultFor = (n) => (n === 0 ? "reset" : undefined);
  traced(4, "wa-down");
  await until(() => stats().tracesSpooled === 4);
  expect({ spoolMode: stats().spoolMode, tracesSpooled: stats().tracesSpooled, files: segmentsIn(dir).length }).toEqual({ spoolMode: "outage", tracesSpooled: 4, files: 1 });
  const r = await flush(8000);
  expect({ ok: r.ok, replayed: stats().tracesReplayed, spoolMode: stats().spoolMode }).toEqual({ ok: true, replayed: 4, spoolMode: "write-ahead" });
  expect(posts.filter((p) => p.key === posts[0]!.key)).toHaveLength(2);
  expect(segmentsIn(dir)).toEqual([]);
});
