// In a file of its own, so that the process (vitest's `forks` pool) measures only this.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, flush, observe, shutdown, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { MAX_ERROR_CHARS, MAX_NAME_CHARS } from "../../src/util/string-limits.js";
import { configureForTest } from "../helpers/sdk.js";

const MB = 1024 * 1024;
let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

it("a 50 MB span name and a 50 MB error message: the trace is stored, truncated, without copying them (rss grows under 25 MB, half of one copy)", async () => {
  configureForTest(dev.url, dev.projectKey);
  const bigName = "n".repeat(50 * MB);
  const bigMessage = "m".repeat(50 * MB);
  // Made flat now, so that the measurement below sees only what tracing them costs.
  expect(bigName.indexOf("x") + bigMessage.indexOf("x")).toBe(-2);
  const before = process.memoryUsage().rss;
  let uuid: string | undefined;
  const run = observe({ name: bigName }, () => {
    uuid = currentTraceUuid();
    updateCurrentSpan({ name: bigName, metadata: { [bigName]: bigName } });
    updateCurrentTrace({ name: bigName, threadId: bigName, userId: bigName, tags: [bigName], metricCollection: bigName });
    throw new Error(bigMessage);
  });
  // Caught by hand: vitest's toThrow(bigMessage) makes a copy of the message under Bun (50 MB
  // measured there), which is the matcher's, not the tracing's.
  let thrown: unknown;
  try {
    run();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(Error);
  expect((thrown as Error).message === bigMessage).toBe(true);
  const result = await flush();
  const grown = process.memoryUsage().rss - before;
  expect(result.ok).toBe(true);
  const stored = dev.state.traces[uuid!]!;
  expect(stored).toBeDefined();
  const span = stored.spans[0]!;
  const name = span.name as string;
  expect(name.length).toBeLessThanOrEqual(MAX_NAME_CHARS + 40);
  expect(name).toMatch(/^n+\.\.\.\[truncated \d+ chars\]$/);
  expect((stored.fields.name as string).length).toBeLessThanOrEqual(MAX_NAME_CHARS + 40);
  const error = span.error as string;
  expect(error.length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 40);
  expect(error).toMatch(/^m+\.\.\.\[truncated \d+ chars\]$/);
  expect(JSON.stringify(stored).length).toBeLessThan(1 * MB);
  console.log(`rss grew ${(grown / MB).toFixed(1)} MB while tracing them`);
  // One copy of either string (or of a slice of it kept alive) is 50 MB more; tracing both
  // measured about 1 MB. Half of one copy leaves room for a loaded machine's noise.
  expect(grown).toBeLessThan(25 * MB);
});
