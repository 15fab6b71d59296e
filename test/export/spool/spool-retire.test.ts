import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { configure, flush, observe, shutdown, stats } from "../../../src/index.js";
import { type FaultProxy, startFaultProxy } from "../../helpers/fault-proxy.js";

// The emulator in strict mode behind a proxy that plays the outage: while `down`, every connection is reset.
let dev: DevServer;
let proxy: FaultProxy;
let down = false;
const dirs: string[] = [];

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  proxy = await startFaultProxy(dev.url, () => (down ? "reset" : undefined));
});
afterAll(async () => {
  await proxy.close();
  await dev.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function stored(run: string): number[] {
  return Object.values(dev.state.traces)
    .map((t) => t.fields.name as string | undefined)
    .filter((n): n is string => n?.startsWith(`${run}-`) === true)
    .map((n) => Number(n.slice(run.length + 1)))
    .sort((a, b) => a - b);
}

describe("a runtime replaced by configure() while its traces are in the spool", () => {
  it("is shut down with the others: its spooled traces are replayed once by shutdown(), and no lock is left", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evaltrace-spool-retire-"));
    dirs.push(dir);
    const options = {
      apiKey: dev.projectKey,
      baseUrl: proxy.url,
      logLevel: "error" as const,
      registerExitHooks: false,
      spool: { dir },
      maxRetries: 1,
      initialRetryDelayMillis: 50,
      maxRetryDelayMillis: 100,
      batch: { flushIntervalMillis: 50 },
    };
    down = true;
    configure(options);
    for (let i = 0; i < 5; i++) observe({ name: `retire-${i}` }, (x: number) => x)(i);
    const until = Date.now() + 10_000;
    while (stats().spooled < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(stats().spooled).toBe(5);
    // Replaced while everything it has is on disk.
    configure(options);
    // Two runtimes now: flush() adds up what both hold on disk.
    expect((await flush(300)).spooled).toBe(5);
    down = false;
    const result = await shutdown(10_000);
    expect({ pending: result.pending, notDelivered: result.notDelivered }).toEqual({ pending: [], notDelivered: [] });
    expect(stored("retire")).toEqual([0, 1, 2, 3, 4]);
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock") || f.endsWith(".seg"))).toEqual([]);
  });
});
