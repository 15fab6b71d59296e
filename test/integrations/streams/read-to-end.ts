import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import type { StoredSpan } from "../../../src/devserver/store/store.js";
import { currentTraceUuid, deliver, observe, shutdown } from "../../../src/index.js";
import { configureForTest } from "../../helpers/sdk.js";

// Issue 42, class 2: a stream read to its end ends its llm span there, whichever helper of the
// SDK made and read it. Shared by the per-SDK test files of this folder.

/** What the app saw of one model call: the token counts the SDK gave it. */
export interface SeenUsage {
  input: number;
  output: number;
}

/**
 * Runs `fn` (which reads every stream to its end) in a root span, then `deliver()`s as an app's
 * way out does; returns the trace's llm spans in start order.
 */
export async function llmSpansOf(dev: DevServer, fn: () => Promise<void>): Promise<StoredSpan[]> {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  await deliver(undefined, 5000);
  const spans = dev.state.traces[uuid]?.spans ?? [];
  return spans.filter((s) => s.type === "llm").sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));
}

/** A span `deliver()` or the way out had to force-end. */
const forced = (s: StoredSpan) => Boolean((s.metadata as Record<string, unknown> | undefined)?.["evaltrace.unfinished"]);

/**
 * The llm spans are one per call the app saw, each ended by its stream (SUCCESS, not force-ended)
 * with an output and the token counts the app saw; the first call's span has the tool call; the
 * SDK logged nothing.
 */
export function expectEndedWithOutput(llm: StoredSpan[], usages: SeenUsage[], toolName: string, logLines: string[]): void {
  expect(llm.map((s) => ({ status: s.status, forced: forced(s) }))).toEqual(usages.map(() => ({ status: "SUCCESS", forced: false })));
  expect(llm.map((s) => [s.inputTokenCount, s.outputTokenCount])).toEqual(usages.map((u) => [u.input, u.output]));
  for (const s of llm) expect(typeof s.output === "string" && s.output.length > 0).toBe(true);
  expect(((llm[0]!.toolsCalled ?? []) as { name: string }[]).map((c) => c.name)).toContain(toolName);
  expect(logLines.filter((l) => !l.startsWith("debug"))).toEqual([]);
}

/** The emulator, a fake model server and the test logger of a file of this folder. */
export interface StreamRig<F> {
  readonly dev: DevServer;
  readonly fake: F;
  /** The SDK's logger of the current test (configured anew before each). */
  readonly log: ReturnType<typeof configureForTest>;
}

/** Starts the emulator and the fake before the file's tests, configures the SDK before each, and stops all after. */
export function streamRig<F extends { url: string; close(): Promise<void> }>(startFake: () => Promise<F>): StreamRig<F> {
  let dev: DevServer | undefined;
  let fake: F | undefined;
  let log: ReturnType<typeof configureForTest> | undefined;
  beforeAll(async () => {
    dev = await startDevServer({ port: 0 });
    fake = await startFake();
  });
  beforeEach(() => {
    log = configureForTest(dev!.url, dev!.projectKey);
  });
  afterAll(async () => {
    await shutdown(0);
    await fake?.close();
    await dev?.close();
  });
  return {
    get dev() {
      return dev!;
    },
    get fake() {
      return fake!;
    },
    get log() {
      return log!;
    },
  };
}
