import { afterEach, describe, expect, it } from "vitest";
import { JsonBytes } from "../../src/encode/json-bytes.js";
import { SlabPool } from "../../src/export/slab-pool.js";
import { flush, observe, shutdown, stats } from "../../src/index.js";
import { postedTraces, type Recorder, type Reply, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

// A batch is written into a slab that is its request's body; once the service answered with
// success, the slab is written over by a later batch (export/slab-pool.ts). What the service
// receives is the oracle: every body must parse and carry exactly its own traces, whatever the
// slab held before, with requests in flight at once, and after refused and failed requests.

let recorder: Recorder | undefined;
afterEach(async () => {
  await shutdown(0);
  await recorder?.close();
  recorder = undefined;
});

const KEY = "svc_local_proj_SLABS";

/** Runs rounds of one-span traces (sizes and output lengths per round), a flush after each; returns the inputs made. */
async function rounds(sizes: readonly [traces: number, outputChars: number][]): Promise<string[]> {
  const made: string[] = [];
  for (let r = 0; r < sizes.length; r++) {
    const [n, chars] = sizes[r]!;
    const f = observe({ name: `round-${r}` }, (q: string) => `${q}:${"x".repeat(chars)}`);
    for (let i = 0; i < n; i++) {
      const q = `r${r}-${i}`;
      made.push(q);
      f(q);
    }
    await flush();
  }
  return made;
}

/** The trace inputs the service took with success, in the order received; fails on a body that does not parse. */
function delivered(rec: Recorder, ok: (n: number) => boolean): string[] {
  const taken = rec.requests.filter((r, n) => ok(n) && r.method === "POST" && r.url === "/v1/traces");
  for (const r of taken) expect(() => JSON.parse(r.raw), `body of request ${rec.requests.indexOf(r)}`).not.toThrow();
  return postedTraces(taken).map((t) => t.input as string);
}

describe("slab pool", () => {
  it("gives back slabs it was handed, keeps at most its number, and none grown past 1 MiB", () => {
    const pool = new SlabPool(2);
    const a = new JsonBytes(1024);
    const b = new JsonBytes(1024);
    const c = new JsonBytes(1024);
    const big = new JsonBytes(2 * 1024 * 1024);
    pool.give(big);
    expect(pool.size).toBe(0);
    pool.give(a);
    pool.give(b);
    pool.give(c);
    expect(pool.size).toBe(2);
    expect(pool.take(16)).toBe(b);
    expect(pool.take(16)).toBe(a);
    const fresh = pool.take(16);
    expect(fresh).not.toBe(a);
    expect(fresh.capacity).toBe(16);
  });
});

describe("batches written into the slabs of earlier batches", () => {
  it("sends each batch's own traces intact, large batches then small ones, two requests in flight at once", async () => {
    recorder = await startRecorder();
    configureForTest(recorder.url, KEY, { batch: { maxSpansPerRequest: 40, concurrency: 2, flushIntervalMillis: 3_600_000 } });
    const made = await rounds([
      [200, 2000],
      [30, 10],
      [120, 500],
      [3, 0],
      [80, 3000],
      [1, 5],
    ]);
    const got = delivered(recorder, () => true);
    expect(got.sort()).toEqual([...made].sort());
    expect(stats().tracesDelivered).toBe(made.length);
  });

  it("sends later batches intact after a batch refused (split on a 400) and one given up (500s)", async () => {
    // Request 1 is refused whole (then sent in halves); requests 4-6 are a batch's three tries, given up.
    const script = (n: number): Reply => (n === 1 ? { status: 400, body: { error: "bad" } } : n >= 4 && n <= 6 ? { status: 500 } : { status: 200 });
    recorder = await startRecorder(script);
    configureForTest(recorder.url, KEY, { maxRetries: 2, initialRetryDelayMillis: 1, batch: { maxSpansPerRequest: 30, concurrency: 1, flushIntervalMillis: 3_600_000 } });
    const made = await rounds([
      [30, 800],
      [30, 100],
      [30, 1500],
      [30, 20],
      [30, 900],
      [10, 0],
    ]);
    const got = delivered(recorder, (n) => script(n) !== "reset" && (script(n) as { status: number }).status === 200);
    // Every trace but the given-up batch's arrives once, intact; the given-up batch's never.
    const lost = made.filter((q) => !got.includes(q));
    expect(lost).toHaveLength(30);
    expect(new Set(got).size).toBe(got.length);
    expect(got.every((q) => made.includes(q))).toBe(true);
    expect(stats().tracesDelivered).toBe(made.length - 30);
  });
});
