import { afterEach, describe, expect, it, vi } from "vitest";
import { currentTraceUuid, flush, observe, shutdown, stats } from "../../src/index.js";
import { postedTraces, type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

// A bug of ours while a batch is built or encoded (simulated: writing a trace named "doomed"
// throws) must never reach the app, a timer (an uncaught exception) or a promise nobody awaits (an
// unhandled rejection): the trace is given up, counted and reported, the rest goes on.

/** The name of the traces whose writing throws, while set. */
const broken = vi.hoisted(() => ({ name: undefined as string | undefined }));
vi.mock("../../src/encode/wire-bytes.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/encode/wire-bytes.js")>();
  return {
    ...real,
    writeTrace: (...args: Parameters<typeof real.writeTrace>) => {
      if (broken.name !== undefined && args[1].name === broken.name) throw new Error("simulated encoding bug");
      real.writeTrace(...args);
    },
  };
});

let recorder: Recorder | undefined;
afterEach(async () => {
  broken.name = undefined;
  await shutdown(0);
  await recorder?.close();
  recorder = undefined;
});

describe("a batch that cannot be encoded", () => {
  for (const when of ["on the interval", "from the span end that fills a request"] as const) {
    it(`is given up, counted and reported, ${when}; the app's calls and the next traces are unharmed`, async () => {
      recorder = await startRecorder();
      const logger = configureForTest(recorder.url, "svc_local_proj_encode", {
        batch: when === "on the interval" ? { flushIntervalMillis: 5 } : { maxSpansPerRequest: 2, flushIntervalMillis: 60_000 },
      });
      broken.name = "doomed";
      const doomed = observe({ name: "doomed" }, () => currentTraceUuid());
      const uuid = doomed();
      expect(doomed()).not.toBe(uuid);
      const first = await flush();
      expect(first.ok).toBe(false);
      expect(first.notDelivered).toContain(uuid);
      expect(stats().tracesFailed).toBe(2);
      expect(logger.lines.some((l) => l.includes("could not encode or send") && l.includes("simulated encoding bug"))).toBe(true);
      broken.name = undefined;
      const fine = observe({ name: "fine" }, () => 1);
      expect(fine()).toBe(1);
      expect(await flush()).toMatchObject({ ok: true, delivered: 1 });
      expect(postedTraces(recorder.requests).map((t) => t.name)).toEqual(["fine"]);
    });
  }

  it("alone: its batch-mates in the same body are delivered", async () => {
    recorder = await startRecorder();
    const logger = configureForTest(recorder.url, "svc_local_proj_encode", { batch: { maxSpansPerRequest: 1000, flushIntervalMillis: 60_000 } });
    broken.name = "doomed";
    const before = observe({ name: "before" }, () => 1);
    const doomed = observe({ name: "doomed" }, () => currentTraceUuid());
    const after = observe({ name: "after" }, () => 2);
    expect(before()).toBe(1);
    const uuid = doomed();
    expect(after()).toBe(2);
    const result = await flush();
    expect(result).toMatchObject({ ok: false, delivered: 2, notDelivered: [uuid] });
    expect(stats().tracesFailed).toBe(1);
    expect(logger.lines.some((l) => l.includes("could not encode or send") && l.includes("simulated encoding bug"))).toBe(true);
    const posts = recorder.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    expect(postedTraces(posts).map((t) => t.name)).toEqual(["before", "after"]);
  });
});
