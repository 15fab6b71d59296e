import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configure, observe, shutdown, stats } from "../../../src/index.js";
import { closedAddress } from "../../helpers/closed-address.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("shutdown() with a spool and more queued than the spool writes at once", () => {
  it("shutdown(0), fsync \"always\": waits for the batches being written and writes the whole queue (past 32 MiB): every trace spooled, none given up", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evaltrace-spool-shutdown-"));
    dirs.push(dir);
    configure({
      apiKey: "et-test-key",
      baseUrl: await closedAddress(),
      logLevel: "error",
      registerExitHooks: false,
      spool: { dir, maxBytes: 512 * 1024 * 1024, fsync: "always" },
      maxRetries: 0,
      batch: { maxQueuedTraces: 20_000, flushIntervalMillis: 60_000 },
    });
    const count = 3_000;
    const big = "x".repeat(16 * 1024);
    for (let i = 0; i < count; i++) observe({ name: `big-${i}` }, (x: string) => x.length)(big);
    await shutdown(0);
    const s = stats();
    expect({ spooled: s.tracesSpooled, failed: s.tracesFailed, dropped: s.tracesDropped }).toEqual({ spooled: count, failed: 0, dropped: 0 });
    expect(s.spoolBytes).toBeGreaterThan(32 * 1024 * 1024);
  });
});

describe("shutdown() with a spool and the service up", () => {
  it("everything delivered and the spool empty: resolves ok, nothing spooled", async () => {
    const { startDevServer } = await import("../../../src/devserver/index.js");
    const dev = await startDevServer({ port: 0 });
    const dir = mkdtempSync(join(tmpdir(), "evaltrace-spool-shutdown-"));
    dirs.push(dir);
    try {
      configure({ apiKey: dev.projectKey, baseUrl: dev.url, logLevel: "error", registerExitHooks: false, spool: { dir } });
      for (let i = 0; i < 5; i++) observe({ name: `up-${i}` }, (x: number) => x + 1)(i);
      const result = await shutdown(5_000);
      expect({ ok: result.ok, spooled: result.spooled ?? 0, pending: result.pending.length }).toEqual({ ok: true, spooled: 0, pending: 0 });
    } finally {
      await dev.close();
    }
  });
});
