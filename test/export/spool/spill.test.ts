import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { enterSending, markQueued } from "../../../src/traces/trace-phase.js";
import { newTraceRecord, type TraceRecord } from "../../../src/traces/trace-record.js";
import { systemClock } from "../../../src/clock.js";
import type { PreparedTrace } from "../../../src/encode/batch-body.js";
import { JsonBytes } from "../../../src/encode/json-bytes.js";
import type { TraceBodies } from "../../../src/encode/trace-body.js";
import { Settlement } from "../../../src/export/settlement.js";
import { Spill } from "../../../src/export/spool/spill.js";
import { TraceSpool } from "../../../src/export/spool/trace-spool.js";
import { noWorkYet } from "../../../src/export/types.js";
import type { Logger } from "../../../src/logger.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function logger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug: () => {}, info: () => {}, warn: (m) => errors.push(m), error: (m) => errors.push(m) };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "evaltrace-spill-unit-"));
  dirs.push(dir);
  const counters = noWorkYet();
  const log = logger();
  const spool = new TraceSpool({ dir, maxBytes: 1024 * 1024, fsync: "rotate", writeAhead: false }, counters, async () => ({ kind: "retry", message: "down" }), systemClock, log);
  const settlement = new Settlement({ clock: systemClock, logger: log, counters, onSettled: () => {} });
  const bodies = { writer: new JsonBytes() } as unknown as TraceBodies;
  const spill = new Spill({ spool, settlement, bodies, counters, logger: log, apiKey: undefined, maxRequestBytes: 1024 * 1024 });
  return { spool, settlement, spill, counters, log };
}

function busyRecord(settlement: Settlement, id: string): TraceRecord {
  const rec = newTraceRecord(id, Date.now());
  // Through the trace room's intents, as the exporter moves it: queued, then taken into a request.
  markQueued(rec, {} as ReadableSpan);
  enterSending(rec);
  expect(rec.phase).toBe("sending");
  settlement.busy(rec);
  return rec;
}

/** Collects the unhandled rejections that happen while `run` runs (and a few turns after). */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await run();
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

describe("spilling a batch to the spool", () => {
  it("a trace the encoder throws on: spill() does not throw, the batch is counted as failed and settled, logged", async () => {
    const { spool, settlement, spill, counters, log } = setup();
    const recs = [busyRecord(settlement, "a".repeat(32)), busyRecord(settlement, "b".repeat(32))];
    // No slab and no text: encoding it throws.
    const batch: PreparedTrace[] = recs.map((rec) => ({ rec, slab: undefined, start: 0, end: 0, spanCount: 1, endTime: [0, 0] }));
    const unhandled = await unhandledDuring(async () => {
      expect(() => spill.spill(batch, {})).not.toThrow();
      await spill.whenWritten();
    });
    expect(unhandled).toEqual([]);
    expect({ failed: counters.tracesFailed, spooled: counters.tracesSpooled, phases: recs.map((r) => r.phase) }).toEqual({ failed: 2, spooled: 0, phases: ["failed", "failed"] });
    expect(settlement.hasPendingWork).toBe(false);
    expect(log.errors.some((e) => e.includes("could not write 2 trace(s) to the spool"))).toBe(true);
    await spool.close();
  });

  it("a throw after the write (a hostile trace's uuid): no unhandled rejection, whenWritten resolves, the traces are counted", async () => {
    const { spool, settlement, spill, counters } = setup();
    const rec = busyRecord(settlement, "c".repeat(32));
    const batch: PreparedTrace[] = [{ rec, slab: undefined, start: 0, end: 0, json: "{}", spanCount: 1, endTime: [0, 0] }];
    spill.watch();
    const spooled = rec as { uuid: string };
    Object.defineProperty(spooled, "uuid", {
      get() {
        throw new Error("hostile uuid");
      },
    });
    const unhandled = await unhandledDuring(async () => {
      spill.spill(batch, {});
      await spill.whenWritten();
    });
    expect(unhandled).toEqual([]);
    // Written to the spool and settled as spooled before the throw: counted once, as spooled.
    expect({ spooled: counters.tracesSpooled, failed: counters.tracesFailed, phase: rec.phase }).toEqual({ spooled: 1, failed: 0, phase: "failed" });
    expect(settlement.hasPendingWork).toBe(false);
    await spool.close();
  });
});
