import type { Clock, TimerHandle } from "../clock.js";
import type { Logger } from "../logger.js";
import { ChurnMap } from "../util/churn-map.js";
import { markFailed } from "../traces/trace-phase.js";
import { isFailed, isSettled, type TraceView } from "../traces/trace-view.js";
import { notify } from "../traces/trace-waiters.js";
import { markBusy, markIdle } from "../traces/trace-work.js";
import type { ExporterCounters, FlushResult } from "./types.js";

/**
 * A flush in progress: it waits for the records that were busy when it looked (those that
 * became busy at or before `seq`, see `busy()`): `left` of them are still to settle.
 */
interface FlushWaiter {
  seq: number;
  left: number;
  wake: () => void;
}

/** What settlement needs, handed in by the composition root. */
export interface SettlementOptions {
  clock: Clock;
  logger: Logger;
  counters: Pick<ExporterCounters, "tracesFailed">;
  /**
   * Told of a record each time its settlement was checked (it may have settled, or changed): the
   * assembler lets go of it once nothing more can happen to it.
   */
  onSettled: (rec: TraceView) => void;
}

/**
 * The exporter's bookkeeping of work not yet done: the records handed to it and not yet delivered
 * or given up (with their late updates), and the other requests a flush must wait for (offline
 * evaluations). `flush()` waits on both; a record that settles wakes the flushes that wait for it.
 * Giving a trace up is settling it too.
 */
export class Settlement {
  /** Records with work not yet done, for flush(). */
  private readonly unsettled = new ChurnMap<TraceView, true>();
  /** Counts records becoming busy: each gets the count as its `busyAt`, for the flushes. */
  private busySeq = 0;
  /** Flushes in progress: the records each still waits for, and how to wake it. */
  private readonly flushes = new Set<FlushWaiter>();
  /** Other work in flight that flushes wait for (offline evaluations). */
  private readonly tracked = new Set<Promise<unknown>>();
  private flushing = 0;
  /** Records whose batch went to the disk spool: settled here, not delivered yet. */
  private readonly spooledRecs = new WeakSet<TraceView>();
  /** Whether any record ever went to the spool (else a flush looks none up in {@link spooledRecs}). */
  private anySpooled = false;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly counters: Pick<ExporterCounters, "tracesFailed">;
  private readonly onSettled: (rec: TraceView) => void;

  constructor(options: SettlementOptions) {
    this.clock = options.clock;
    this.logger = options.logger;
    this.counters = options.counters;
    this.onSettled = options.onSettled;
  }

  /** Whether a flush is in progress (batches then go out partial, at once). */
  get isFlushing(): boolean {
    return this.flushing > 0;
  }

  /** Whether there is anything not yet delivered (used by the exit hook). */
  get hasPendingWork(): boolean {
    return this.unsettled.size > 0 || this.tracked.size > 0;
  }

  /** A record has work to do (sent, or a late update): flushes wait for it until it settles. */
  busy(rec: TraceView): void {
    if (!markBusy(rec, this.busySeq + 1)) return;
    this.busySeq++;
    this.unsettled.set(rec, true);
  }

  /** Checks whether a record settled (waking the flushes that wait for it), and tells its waiters. */
  settle(rec: TraceView): void {
    if (rec.busy && isSettled(rec)) {
      markIdle(rec);
      this.unsettled.delete(rec);
      for (const f of this.flushes) if (rec.busyAt <= f.seq && --f.left === 0) f.wake();
    }
    notify(rec);
    this.onSettled(rec);
  }

  /** Work a flush must wait for until it settles (it should never reject: a flush would end early). */
  track(work: Promise<unknown>): void {
    this.tracked.add(work);
    const done = () => this.tracked.delete(work);
    void work.then(done, done);
  }

  /**
   * Resolves when everything busy now settled, or when `timeoutMillis` passed. With `drain`, what
   * becomes busy meanwhile is waited for too, until nothing is left. `sendNow` sends what is
   * queued (at once, and again each time a drain looks anew). Keeps the process alive while it
   * waits (its caller awaits it). Never rejects.
   */
  async flush(timeoutMillis: number, drain: boolean, sendNow: () => void, unreachable?: { promise: Promise<string>; cancel: () => void }): Promise<FlushResult> {
    // An array, not a set: a flush of many traces (a serverless handler's, a benchmark's) pays
    // no hashing for them; only a draining flush, which adds what finishes meanwhile, keeps a set.
    const records = this.unsettled.keyList();
    let seen: Set<TraceView> | undefined;
    let tracked = [...this.tracked];
    this.flushing++;
    sendNow();
    let timer: TimerHandle | undefined;
    let timedOut = false;
    const entry: FlushWaiter = { seq: 0, left: 0, wake: () => {} };
    const timeout = new Promise<void>((resolve) => {
      const expire = () => {
        timedOut = true;
        resolve();
      };
      // A zero timeout means "send now, do not wait": no timer, so it works with any clock.
      if (!(timeoutMillis > 0)) queueMicrotask(expire);
      // A timer cannot wait longer (Node would fire it at once): beyond it, wait that long.
      else timer = this.clock.setTimeout(expire, Math.min(timeoutMillis, 2_147_483_647), true);
    });
    // Nothing has ever answered at the address and nothing listens there: retries cannot
    // succeed soon, so the flush does not wait them out (they go on in the background).
    let nothingAnswers: string | undefined;
    const gaveUp = unreachable?.promise.then((reason) => {
      nothingAnswers = reason;
    });
    try {
      for (let look = 0; ; look++) {
        // Every busy record is waited for (all of them are in `records`): one that is settled
        // already but was not told so is settled now, so that each one left wakes this once. The
        // first look is at `records` itself (a record settled meanwhile is no longer busy).
        const busy = look === 0 ? records : this.unsettled.keyList();
        for (const r of busy) if (r.busy && isSettled(r)) this.settle(r);
        entry.seq = this.busySeq;
        entry.left = this.unsettled.size;
        if (entry.left === 0 && tracked.length === 0) break;
        const settledAll = new Promise<void>((resolve) => {
          entry.wake = resolve;
          if (entry.left === 0) resolve();
          else this.flushes.add(entry);
        });
        await Promise.race([Promise.all([settledAll, ...tracked]), timeout, ...(gaveUp ? [gaveUp] : [])]);
        this.flushes.delete(entry);
        if (timedOut || nothingAnswers !== undefined || !drain) break;
        seen ??= new Set(records);
        for (const r of this.unsettled.keys()) {
          if (seen.has(r)) continue;
          seen.add(r);
          records.push(r);
        }
        tracked = [...this.tracked];
        sendNow();
      }
    } finally {
      unreachable?.cancel();
      this.flushing--;
      this.flushes.delete(entry);
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
    // One pass over the records (a flush of many traces pays a few checks per trace).
    let counted = 0;
    let spooled = 0;
    const notDelivered: string[] = [];
    const pending: string[] = [];
    const anySpooled = this.anySpooled;
    for (const r of records) {
      if (r.discarded && r.phase === "failed") continue;
      counted++;
      const inSpool = anySpooled && this.spooledRecs.has(r);
      if (inSpool) spooled++;
      if ((isFailed(r) && !inSpool) || r.partLost !== undefined) notDelivered.push(r.uuid);
      if (!isSettled(r)) pending.push(r.uuid);
    }
    const delivered = counted - notDelivered.length - pending.length - spooled;
    const result: FlushResult = { ok: notDelivered.length === 0 && pending.length === 0 && spooled === 0, delivered, notDelivered, pending, timedOut };
    if (nothingAnswers !== undefined && pending.length > 0) {
      // Said once, when they are given up (at exit) or delivered: not here as well.
      result.nothingAnswers = nothingAnswers;
      return result;
    }
    if (!result.ok) {
      this.logger.warn(
        `flush: ${delivered} trace(s) delivered, ${notDelivered.length} given up, ${pending.length} still pending${spooled > 0 ? `, ${spooled} in the disk spool` : ""}${timedOut ? ` after ${timeoutMillis} ms` : ""}`,
      );
    }
    return result;
  }

  /**
   * Makes a shutdown's last flush result the truth once nothing can go out any more: the traces
   * `left` in the queue are given up (counted), and whatever else is still unsettled (a request
   * being aborted) is pending.
   */
  closeOut(result: FlushResult, left: readonly TraceView[]): FlushResult {
    for (const rec of left) {
      this.counters.tracesFailed++;
      this.fail(rec, "the SDK was shut down before it could be sent");
    }
    if (left.length > 0) this.logger.error(`${left.length} trace(s) not delivered: the SDK was shut down before they could be sent`);
    // Anything else still unsettled (a request being aborted) cannot be delivered either.
    for (const rec of this.unsettled.keys()) {
      if (!result.pending.includes(rec.uuid) && !result.notDelivered.includes(rec.uuid)) result.pending.push(rec.uuid);
    }
    for (const rec of left) {
      result.pending = result.pending.filter((u) => u !== rec.uuid);
      if (!result.notDelivered.includes(rec.uuid)) result.notDelivered.push(rec.uuid);
    }
    result.ok = result.ok && result.pending.length === 0 && result.notDelivered.length === 0;
    return result;
  }

  /**
   * Gives up traces that could not be encoded or sent because of a bug of ours (nothing the app
   * or the service did): counted and reported, never thrown into the app.
   */
  lose(batch: readonly { rec: TraceView }[], err: unknown): void {
    this.giveUp(
      batch.filter((p) => p.rec.phase !== "sent" && p.rec.phase !== "failed"),
      `the SDK could not encode or send them (${String(err)})`,
    );
  }

  /** {@link lose} of one trace, from a microtask: nothing may escape into the app as an uncaught error. */
  loseQuietly(rec: TraceView, err: unknown): void {
    try {
      this.lose([{ rec }], err);
    } catch {
      // lose() only counts, logs (the logger never throws) and settles: nothing is left to do.
    }
  }

  /** Gives up traces of a batch: counted, reported once, each failed with the reason. */
  giveUp(batch: readonly { rec: TraceView }[], reason: string): void {
    if (batch.length === 0) return;
    this.counters.tracesFailed += batch.length;
    this.logger.error(`${batch.length} trace(s) not delivered: ${reason}`);
    for (const p of batch) this.fail(p.rec, reason);
  }

  /**
   * Settles traces whose batch was written to the disk spool: nothing more of them is sent from
   * memory (a late update of one is given up: the replay delivers the trace as it was spooled).
   */
  spooled(batch: readonly { rec: TraceView }[]): void {
    if (batch.length > 0) this.anySpooled = true;
    for (const p of batch) {
      this.spooledRecs.add(p.rec);
      this.fail(p.rec, "in the disk spool, awaiting replay");
    }
  }

  /** Fails a trace (not counted here): nothing more of it is sent. */
  fail(rec: TraceView, reason: string): void {
    markFailed(rec, reason);
    this.settle(rec);
  }
}
