import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context } from "@opentelemetry/api";
import { afterAll, expect, it } from "vitest";
import { configure, flush, observe, shutdown, stats } from "../../../src/index.js";
import { closedAddress } from "../../helpers/closed-address.js";

const dir = mkdtempSync(join(tmpdir(), "evaltrace-spool-late-"));
afterAll(async () => {
  await shutdown(0);
  rmSync(dir, { recursive: true, force: true });
});

it("spans that end after their trace went to the disk spool go out as late updates; with the service down each is counted in updatesFailed and logged, none lost silently", async () => {
  const errors: string[] = [];
  configure({
    apiKey: "et-test-key",
    baseUrl: await closedAddress(),
    logLevel: "warn",
    logger: { debug() {}, info() {}, warn() {}, error: (m: string) => errors.push(m) },
    registerExitHooks: false,
    maxRetries: 0,
    spool: { dir },
  });
  // The trace ends; work it started goes on later, in its context.
  let later: (() => number) | undefined;
  observe({ name: "root" }, () => {
    later = context.bind(context.active(), observe({ name: "late child" }, () => 1));
  })();
  const spooled = await flush(2_000);
  expect({ spooled: spooled.spooled, tracesSpooled: stats().tracesSpooled }).toEqual({ spooled: 1, tracesSpooled: 1 });
  expect([later?.(), later?.()]).toEqual([1, 1]);
  await flush(2_000);
  expect({ updatesFailed: stats().updatesFailed, spooled: stats().spooled }).toEqual({ updatesFailed: 2, spooled: 1 });
  expect(errors.some((e) => e.includes("/v1/traces/"))).toBe(true);
});
