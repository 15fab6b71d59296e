import { JsonBytes } from "../encode/json-bytes.js";
import type { TraceBodies } from "../encode/trace-body.js";
import { isReportableCount, type Logger } from "../logger.js";
import { markSending, nextLateBatch } from "../traces/outgoing.js";
import { markSent } from "../traces/trace-phase.js";
import type { TraceSink } from "../traces/trace-sink.js";
import type { TraceView } from "../traces/trace-view.js";
import { notify } from "../traces/trace-waiters.js";
import type { CaptureTarget, WireObject } from "./trace-capture.js";
import { claimingCaptures, traceTaps } from "./trace-tap.js";

/** What the tapped sink needs from the composition root. */
export interface TappedSinkParts {
  /** Where traces no capture claimed go: the exporter. */
  exporter: TraceSink;
  bodies: TraceBodies;
  logger: Logger;
  /** Lets the assembler forget a record once nothing more can happen to it. */
  release: (rec: TraceView) => void;
}

/**
 * The assembler's sink: the exporter, unless a capture of `evaltrace/testing` claimed the trace
 * when it started; then the trace is encoded exactly as it would be sent, handed to the capture,
 * and nothing of it reaches the exporter (late spans and fields, nor a drop, included).
 */
export class TappedSink implements TraceSink {
  /** The captures that claimed each trace, while the assembler holds its record. */
  private readonly claims = new WeakMap<TraceView, readonly CaptureTarget[]>();
  /** Whether any trace was ever claimed: until one is, no trace is looked up in {@link claims} (one look-up per trace, in an app that never captures). */
  private claimedAny = false;
  private slab: JsonBytes | undefined;

  constructor(private readonly parts: TappedSinkParts) {}

  opened(rec: TraceView): void {
    const captures = claimingCaptures();
    if (captures.length > 0) {
      this.claims.set(rec, captures);
      this.claimedAny = true;
    }
  }

  enqueue(rec: TraceView): void {
    const captures = this.claimedAny ? this.claims.get(rec) : undefined;
    if (!captures) {
      this.parts.exporter.enqueue(rec);
      return;
    }
    const { bodies } = this.parts;
    this.slab ??= new JsonBytes(4096);
    this.slab.reset();
    try {
      const p = bodies.prepare(markSending(rec), this.slab);
      const trace = JSON.parse(this.slab.text(p.start, p.end)) as WireObject;
      this.deliver(captures, rec, (c) => c.received(trace));
    } catch (err) {
      this.parts.logger.warn(`a captured trace could not be read (${String(err)}): not captured`);
    }
    markSent(rec);
    notify(rec);
    this.parts.release(rec);
  }

  scheduleUpdate(rec: TraceView): void {
    const captures = this.claimedAny ? this.claims.get(rec) : undefined;
    if (!captures) {
      this.parts.exporter.scheduleUpdate(rec);
      return;
    }
    const late = nextLateBatch(rec);
    if (late) {
      try {
        const body: WireObject = {};
        this.parts.bodies.update(rec, late, body);
        const update = JSON.parse(this.parts.bodies.updateText(body, [])) as WireObject;
        if (Object.keys(update).length > 0) this.deliver(captures, rec, (c) => c.updated(rec.uuid, update));
      } catch (err) {
        this.parts.logger.warn(`a late part of captured trace ${rec.uuid} could not be read (${String(err)}): not captured`);
      }
    }
    notify(rec);
    this.parts.release(rec);
  }

  discard(rec: TraceView): void {
    const captures = this.claimedAny ? this.claims.get(rec) : undefined;
    if (!captures) {
      this.parts.exporter.discard(rec);
      return;
    }
    for (const c of captures) c.dropped(rec.uuid);
  }

  flush(): Promise<unknown> {
    return this.parts.exporter.flush();
  }

  shutdown(): Promise<unknown> {
    return this.parts.exporter.shutdown();
  }

  /** Hands a trace (or its update) to the captures still running; counts it lost when none is. */
  private deliver(captures: readonly CaptureTarget[], rec: TraceView, give: (c: CaptureTarget) => void): void {
    let given = false;
    for (const c of captures) {
      if (!c.active) continue;
      given = true;
      give(c);
    }
    if (given) return;
    const taps = traceTaps();
    taps.lost++;
    if (isReportableCount(taps.lost)) {
      this.parts.logger.warn(
        `${taps.lost} captured trace part(s) ended after their capture stopped (e.g. trace ${rec.uuid}): neither captured nor sent (await the work a test starts before stop())`,
      );
    }
  }
}
