import { afterEach, describe, expect, it } from "vitest";
import { currentTraceUuid, flush, observe, shutdown, stats } from "../../src/index.js";
import { postedTraces, type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

// A bug of ours while a batch is built or encoded (simulated: JSON.stringify throws for the
// batch's traces) must never reach the app, a timer (an uncaught exception) or a promise nobody
// awaits (an unhandled rejection): the traces are given up, counted and reported, the rest goes on.

let recorder: Recorder | undefined;
const realStringify = JSON.stringify;
afterEach(async () => {
  JSON.stringify = realStringify;
  await shutdown(0);
  await recorder?.close();
  recorder = undefined;
});

/** Makes JSON.stringify throw for anything that contains a trace named `name`. */
function breakStringifyFor(name: string): void {
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    const text = (realStringify as (v: unknown, ...r: unknown[]) => string)(value, ...rest);
    if (typeof text === "string" && text.includes(`"name":"${name}"`) && text.includes('"baseSpans"')) throw new Error("simulated encoding bug");
    return text;
  }) as typeof JSON.stringify;
}

describe("a batch that cannot be encoded", () => {
  for (const when of ["on the interval", "from the span end that fills half a request"] as const) {
    it(`is given up, counted and reported, ${when}; the app's calls and the next traces are unharmed`, async () => {
      recorder = await startRecorder();
      const logger = configureForTest(recorder.url, "svc_local_proj_encode", {
        batch: when === "on the interval" ? { flushIntervalMillis: 5 } : { maxSpansPerRequest: 2, flushIntervalMillis: 60_000 },
      });
      breakStringifyFor("doomed");
      const doomed = observe({ name: "doomed" }, () => currentTraceUuid());
      const uuid = doomed();
      expect(doomed()).not.toBe(uuid);
      const first = await flush();
      expect(first.ok).toBe(false);
      expect(first.notDelivered).toContain(uuid);
      expect(stats().tracesFailed).toBe(2);
      expect(logger.lines.some((l) => l.includes("could not encode or send") && l.includes("simulated encoding bug"))).toBe(true);
      JSON.stringify = realStringify;
      const fine = observe({ name: "fine" }, () => 1);
      expect(fine()).toBe(1);
      expect(await flush()).toMatchObject({ ok: true, delivered: 1 });
      expect(postedTraces(recorder.requests).map((t) => t.name)).toEqual(["fine"]);
    });
  }
});
