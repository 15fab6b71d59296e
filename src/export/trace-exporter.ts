import type { Clock, TimerHandle } from "../clock.js";
import type { BatchOptions } from "../config/options.js";
import { isReportableCount, type Logger } from "../logger.js";
import { Fifo } from "../util/fifo.js";
import { nextTurn } from "../util/next-turn.js";
import { moveToSlab, type PreparedTrace } from "../encode/batch-body.js";
import type { JsonBytes } from "../encode/json-bytes.js";
import type { TraceBodies } from "../encode/trace-body.js";
import { markSending } from "../traces/outgoing.js";
import { markDroppedByApp } from "../traces/trace-phase.js";
import type { TraceSink } from "../traces/trace-sink.js";
import { isQueued, isSent, type TraceView } from "../traces/trace-view.js";
import { SlabPool } from "./slab-pool.js";
import { BatchSender } from "./batch-sender.js";
import type { Evaluations } from "./evaluations.js";
import type { LateUpdates } from "./late-updates.js";
import type { Requests } from "./requests.js";
import type { Settlement } from "./settlement.js";
import { Spill } from "./spool/spill.js";
import { OUTAGE_SPILL_MILLIS, SpoolMode } from "./spool/spool-mode.js";
import type { TraceSpool } from "./spool/trace-spool.js";
import type { EvaluationOutcome, ExporterCounters, ExporterStats, FlushResult } from "./types.js";

/** Exporter options (resolved). */
export interface TraceExporterOptions {
  batch: Required<BatchOptions>;
  /** Scrubbed from every payload, should the app trace a value that contains it. */
  apiKey?: string | undefined;
  flushTimeoutMillis: number;
}

/**
 * The parts an exporter is made of, made by the composition root (`runtime/runtime.ts`): the
 * request slots and transport, the encoder of trace bodies, the bookkeeping of unsettled work, the
 * late updates, the offline evaluations, and the counters they all count in.
 */
export interface TraceExporterParts {
  requests: Requests;
  bodies: TraceBodies;
  settlement: Settlement;
  lateUpdates: LateUpdates;
  evaluations: Evaluations;
  counters: ExporterCounters;
  clock: Clock;
  logger: Logger;
  /** The disk spool, when `configure({ spool })` asked for one (docs/spool.md). */
  spool?: TraceSpool | undefined;
}

/**
 * Longest stretch of taking traces into a batch (each written as JSON bytes as it is taken) in
 * one turn of the event loop: a batch is taken over as many turns as it takes. Small, because
 * the first batches of a process run in the interpreter, several times slower than later ones,
 * on the same turns as the app's own first, slow calls (bench/ workload C, p99 loop delay).
 */
const SLICE_MILLIS = 0.25;
/** At shutdown, how long (at least) the queue is written to the spool while earlier batches are being written. */
const SPILL_GRACE_MILLIS = 1_000;

const defer = nextTurn;

/** Spans taken between two readings of the clock. */
const CHECK_EVERY_SPANS = 4;

/**
 * Queued spans from which traces are taken into the next batch ahead of time (a few traces'
 * worth: fewer, and each take is too small to be worth its set-up).
 */
const EARLY_SPANS = 16;

/** A batch being taken, a slice per turn: its traces, their spans, and the slab they are written in. */
interface Taking {
  traces: PreparedTrace[];
  spans: number;
  slab: JsonBytes;
  /** Taken ahead of time (see {@link TraceExporter.takeEarly}): not due until its spans make a batch, or the interval or a flush says so. */
  early?: boolean;
  /** A trace taken ahead of time that did not fit in the batch's bytes: its bytes are still just past the slab's end, and it begins the next batch. */
  overflow?: PreparedTrace;
}

/**
 * Batches finished traces into `POST /v1/traces` requests in the list form, in slices of the
 * event loop, and settles them by the answer (the single-trace form once the service refuses the
 * list, a split on a 4xx, a 409 to a retry taken as delivered). Memory is bounded by
 * `maxQueuedTraces`. Made of parts handed in by the composition root: {@link TraceBodies} writes
 * each trace's body, {@link LateUpdates} sends what arrives after a trace was sent,
 * {@link Evaluations} the offline evaluations, and flushes wait through {@link Settlement}.
 */
export class TraceExporter implements TraceSink {
  private readonly queue = new Fifo<TraceView>();
  private queuedSpans = 0;
  /** The batch being taken, until it is full or nothing is left to take. */
  private taking: Taking | undefined;
  /** Bytes of the last batch taken: the next slab's first size. */
  private slabBytes = 16 * 1024;
  /** Slabs of batches whose requests are over, for the next batches. */
  private readonly slabs: SlabPool;
  /**
   * Spans that make a batch worth sending before the interval: a whole request's (a request
   * costs about as much CPU as writing a few hundred spans, whatever its size, so the fewer the
   * better; the spans of queued traces are written ahead of time, {@link takeEarly}, so that a
   * fuller queue is not more objects for the GC to copy).
   */
  private get sendAt(): number {
    return this.options.batch.maxSpansPerRequest;
  }

  /** A batch is being taken that is due (not one taken ahead of time): taking goes on at the next pump. */
  private get takingDue(): boolean {
    return this.taking !== undefined && this.taking.early !== true;
  }

  /** Spans queued, and taken into the batch not sent yet. */
  private get pendingSpans(): number {
    return this.queuedSpans + (this.taking?.spans ?? 0);
  }
  private timer: TimerHandle | undefined;
  private pumpScheduled = false;
  /** A forced (timer) pump ran out of its turn's budget; the next turn continues it. */
  private forcedPending = false;
  private stopped = false;
  private shutdownResult: Promise<FlushResult> | undefined;
  private enqueued = 0;
  private readonly requests: Requests;
  private readonly bodies: TraceBodies;
  private readonly settlement: Settlement;
  private readonly lateUpdates: LateUpdates;
  private readonly evaluations: Evaluations;
  private readonly counters: ExporterCounters;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly spool: TraceSpool | undefined;
  /** How batches reach the spool (with one). */
  private readonly spiller: Spill | undefined;
  /** Whether the service is in an outage, with a spool (then every batch goes to it). */
  private readonly mode: SpoolMode | undefined;
  /** Sends the batches taken, and settles them by the answer. */
  private readonly sender: BatchSender;
  /** What a flush calls to send what is queued now. */
  private readonly sendNow = (): void => this.pump();

  constructor(
    private readonly options: TraceExporterOptions,
    parts: TraceExporterParts,
  ) {
    this.requests = parts.requests;
    this.bodies = parts.bodies;
    this.settlement = parts.settlement;
    this.lateUpdates = parts.lateUpdates;
    this.evaluations = parts.evaluations;
    this.counters = parts.counters;
    this.clock = parts.clock;
    this.logger = parts.logger;
    this.spool = parts.spool;
    this.spiller =
      this.spool &&
      new Spill({ spool: this.spool, settlement: this.settlement, bodies: this.bodies, counters: this.counters, logger: this.logger, apiKey: options.apiKey, maxRequestBytes: options.batch.maxRequestBytes });
    if (this.spool !== undefined) {
      const mode = (this.mode = new SpoolMode(this.spool.writesAhead, this.clock, this.logger));
      // A replay answered: the service is back, batches are sent again.
      this.spool.onAnswered = () => mode.answered();
    }
    this.slabs = new SlabPool(options.batch.concurrency + 1);
    this.sender = new BatchSender({
      slabs: this.slabs,
      requests: this.requests,
      bodies: this.bodies,
      settlement: this.settlement,
      lateUpdates: this.lateUpdates,
      counters: this.counters,
      logger: this.logger,
      spool: this.spool,
      spiller: this.spiller,
      mode: this.mode,
      apiKey: options.apiKey,
      maxRequestBytes: options.batch.maxRequestBytes,
      onOutage: () => this.outageBegins(),
    });
    // Any request that frees its slot (a batch's, a late update's, an evaluation's) lets what
    // waits for one go, on the next turn (a slot counts its task as running until a microtask after it settled).
    this.requests.onSlotFreed(() => {
      if (this.hasQueued()) this.schedulePump();
    });
  }

  stats(): ExporterStats {
    const queued = this.queuedTraces();
    return {
      ...this.counters,
      queued,
      inFlight: this.requests.inFlight,
      spooled: this.spool?.traces ?? 0,
      spoolBytes: this.spool?.bytes ?? 0,
      spoolMode: this.mode?.name(this.spool?.open === true) ?? "none",
      tracesOnlyInMemory: queued + this.sender.onlyInMemory - this.sender.waitingWritten + (this.spiller?.tracesUnwritten ?? 0),
    };
  }

  /** Queues a trace whose root ended. Drops it (counted) when the queue is full. */
  enqueue(rec: TraceView): void {
    if (this.stopped || this.queuedTraces() >= this.options.batch.maxQueuedTraces) {
      this.counters.tracesDropped++;
      this.settlement.fail(rec, this.stopped ? "the SDK was shut down" : "the export queue was full (maxQueuedTraces)");
      const n = this.counters.tracesDropped;
      if (isReportableCount(n)) {
        this.logger.warn(
          `${n} trace(s) dropped so far: ${this.stopped ? "SDK shut down" : `export queue full (maxQueuedTraces=${this.options.batch.maxQueuedTraces})`}`,
        );
      }
      return;
    }
    this.settlement.busy(rec);
    this.enqueued++;
    this.queue.push(rec);
    this.queuedSpans += rec.spans.length;
    // A request's worth: it goes out now, from the span end that made it so, when a request slot
    // is free (as OpenTelemetry's batch processor does), so that finished traces do not pile up
    // while the app runs without yielding. A slice of a batch, of SLICE_MILLIS; with no free slot,
    // the request that frees one pumps again. Before that, traces are written into the batch as
    // they come (takeEarly), so that they do not grow old in the heap as objects.
    if (this.pendingSpans >= this.sendAt) this.pump();
    else {
      if (this.queuedSpans >= EARLY_SPANS && this.spool === undefined && this.takeEarly()) {
        this.pump();
        return;
      }
      this.armTimer();
    }
  }

  /** Schedules the late update of a trace that was already handed to a request. */
  scheduleUpdate(rec: TraceView): void {
    this.settlement.busy(rec);
    if (isSent(rec) && !rec.putInFlight) this.lateUpdates.start(rec);
    // While the POST is in flight, its completion picks the update up.
  }

  /**
   * Sends an offline evaluation once what it refers to was delivered ({@link Evaluations.evaluate});
   * what it waits for goes out now, not at the next batch interval.
   */
  evaluate(path: string, body: Record<string, unknown>, ready: () => Promise<string | undefined>, deferred = false, apiKey?: string): Promise<EvaluationOutcome> {
    this.pump(true);
    return this.evaluations.evaluate(path, body, ready, deferred, apiKey);
  }

  /**
   * Sends everything finished so far now and resolves when all of it was delivered or given
   * up, or when `timeoutMillis` passed. With `drain`, what finishes meanwhile is waited for too,
   * until nothing is left. Keeps the process alive while it waits (its caller awaits it). Never
   * rejects.
   */
  flush(timeoutMillis = this.options.flushTimeoutMillis, drain = false): Promise<FlushResult> {
    const spool = this.spool;
    // Without a spool, a flush does not wait out retries to an address where nothing ever answered.
    if (spool === undefined) return this.settlement.flush(timeoutMillis, drain, this.sendNow, this.requests.whenNeverReached());
    // With a spool: what it holds is replayed too, within what is left of the time.
    const started = this.clock.now();
    return this.settlement.flush(timeoutMillis, drain, this.sendNow).then(async (result) => {
      await spool.drain(Math.max(0, timeoutMillis - (this.clock.now() - started)));
      result.spooled = spool.traces;
      return result;
    });
  }

  /**
   * Delivers everything, what finishes meanwhile included (within `timeoutMillis`), then refuses
   * new traces, closes the transport (nothing retries after it) and resolves with the truth:
   * whatever was not delivered is in the result. Idempotent.
   */
  async shutdown(timeoutMillis = this.options.flushTimeoutMillis): Promise<FlushResult> {
    this.shutdownResult ??= (async () => {
      const started = this.clock.now();
      const result = await this.flush(timeoutMillis, true);
      this.stopped = true;
      this.lateUpdates.stop();
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      // With a spool, what could not go out waits on disk for the next process.
      const spooled = this.spiller?.watch();
      if (this.spiller !== undefined) await this.spillQueue(this.spiller, Math.max(started + timeoutMillis, this.clock.now() + SPILL_GRACE_MILLIS));
      await this.requests.close();
      if (this.spool !== undefined && spooled !== undefined) {
        // Requests cut off by the close go to the spool too (their failure spills them).
        await this.requests.whenIdle();
        await this.spiller?.whenWritten();
        await this.spool.close();
        // Those traces wait on disk: neither pending nor given up.
        result.spooled = this.spool.traces;
        result.pending = result.pending.filter((uuid) => !spooled.has(uuid));
        if (result.spooled > 0) result.ok = false;
      }
      // What is still queued can no longer go out: given up, counted, and let go.
      const taken = this.taking;
      const left = [...(taken?.traces ?? []).map((p) => p.rec), ...(taken?.overflow ? [taken.overflow.rec] : []), ...this.queue.drain()];
      this.taking = undefined;
      this.queuedSpans = 0;
      return this.settlement.closeOut(result, left);
    })();
    return this.shutdownResult;
  }

  /** Why nothing answers at the base URL (nothing ever did, and a connection was refused), else undefined. */
  get nothingAnswers(): string | undefined {
    return this.requests.nothingAnswers;
  }

  /** True once shut down: nothing more is accepted or sent. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Traces handed to the exporter so far, to tell whether new work arrived since a check. */
  get handedOff(): number {
    return this.enqueued;
  }

  /** Whether there is anything not yet delivered (used by the exit hook). */
  get hasPendingWork(): boolean {
    return this.settlement.hasPendingWork;
  }

  /**
   * Lets go of a trace the app dropped: still queued, it is taken out (never sent); sent, its
   * late updates are forgotten. Not a loss: `flush()` does not report it.
   */
  discard(rec: TraceView): void {
    if (isQueued(rec)) this.queuedSpans -= rec.spans.length;
    markDroppedByApp(rec);
    this.settlement.settle(rec);
  }

  private armTimer(): void {
    if (this.timer !== undefined || this.stopped) return;
    const interval = this.options.batch.flushIntervalMillis;
    // In an outage, what is queued goes to the spool within OUTAGE_SPILL_MILLIS at most.
    const wait = this.inOutage() ? Math.min(interval, OUTAGE_SPILL_MILLIS) : interval;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.pump(true);
    }, wait);
  }

  /** In an outage with a spool that takes batches: what is queued goes to the spool, not to requests. */
  private inOutage(): boolean {
    return this.mode?.outage === true && this.spool?.accepting === true;
  }

  /** A request failed for want of the service: an outage begins (if none is on), and what is queued goes to the spool now. */
  private outageBegins(): void {
    if (this.mode?.failed() !== true) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.hasQueued()) {
      this.forcedPending = true;
      this.schedulePump();
    }
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    defer(() => {
      this.pumpScheduled = false;
      const force = this.forcedPending;
      this.forcedPending = false;
      this.pump(force);
    });
  }

  /**
   * Starts a request when there is a slot; partial batches only when forced or flushing. Takes
   * traces into a batch for at most SLICE_MILLIS per turn of the event loop and continues on the
   * next, so that exporting never holds the app's loop for long.
   */
  private pump(force = false): void {
    // Called from the app's span ends, timers and flush(): whatever goes wrong is logged, never
    // thrown (into the app's call, or as an uncaught exception from a timer).
    try {
      this.pumpOnce(force);
    } catch (err) {
      this.logger.error(`export: could not build a batch: ${String(err)}`);
    }
  }

  private pumpOnce(force: boolean): void {
    const spill = this.overflowing();
    const outage = this.inOutage();
    // Write-ahead: a batch due is taken and written even when no request slot is free, and waits for one.
    const ahead = !outage && this.spool?.writesAhead === true && this.spool.accepting;
    if (this.hasQueued() && (this.requests.hasFreeSlot || spill || outage || ahead)) {
      const partialOk = force || this.settlement.isFlushing || this.stopped;
      if (partialOk || this.pendingSpans >= this.sendAt || this.takingDue || spill) {
        const taken = this.takeBatch();
        if (taken !== undefined && taken.traces.length > 0) {
          const { traces, slab } = taken;
          if (this.requests.hasFreeSlot && !outage) {
            void this.requests.add(() => this.sender.sendBatch(traces, false, slab)).catch((err: unknown) => this.settlement.lose(traces, err));
          } else if (ahead && !spill) void this.sender.writeThenSend(traces, slab).catch((err: unknown) => this.settlement.lose(traces, err));
          else this.spiller?.spill(traces, { slab });
        }
        if (this.takingDue || (this.hasQueued() && (partialOk || this.pendingSpans >= this.sendAt || this.overflowing()))) {
          if (partialOk) this.forcedPending = true;
          this.schedulePump();
        }
      }
    }
    if (this.hasQueued()) this.armTimer();
    else if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Whether the oldest queued traces go to the disk spool now: in an outage, at once (batches are
   * taken when full, or when the timer of at most OUTAGE_SPILL_MILLIS fires); past a quarter of
   * the queue's bound, the service is slower than the app (while it keeps up, the queue never
   * gets there); the rest of the bound is headroom while batches are taken to the spool, a slice
   * of the loop at a time.
   */
  private overflowing(): boolean {
    return this.spool?.accepting === true && this.queuedTraces() >= Math.ceil(this.options.batch.maxQueuedTraces / 4);
  }

  /**
   * At shutdown, with a spool: every trace still queued goes to it, a slice of the loop at a time.
   * While the most bytes are being written, it waits for them, until `deadline` (epoch ms).
   */
  private async spillQueue(spiller: Spill, deadline: number): Promise<void> {
    const spool = this.spool;
    while (this.hasQueued() && spool?.open === true) {
      if (!spool.accepting) {
        if (this.clock.now() >= deadline) return;
        await spiller.whenWritten();
        // Nothing of ours was being written: it does not take batches, waiting would not change that.
        if (!spool.accepting) return;
        continue;
      }
      const taken = this.takeBatch();
      if (taken !== undefined && taken.traces.length > 0) spiller.spill(taken.traces, { slab: taken.slab });
      else if (taken === undefined) await new Promise<void>((resolve) => defer(resolve));
    }
  }

  private hasQueued(): boolean {
    return this.queue.length > 0 || this.taking !== undefined;
  }

  /** Traces waiting for a request: queued, or in the batch being taken. */
  private queuedTraces(): number {
    const taking = this.taking;
    return this.queue.length + (taking === undefined ? 0 : taking.traces.length + (taking.overflow === undefined ? 0 : 1)) + this.sender.waitingForSlot;
  }

  /**
   * Takes the queue's head trace, `rec`, into the batch: written into its slab (nothing is left
   * written when writing throws: the trace is lost, counted, after this turn). "full": it would
   * take the batch past its spans, and is left queued, unwritten (the batch stays exactly its
   * slab's traces, and is its body: a trace's spans can only be fewer once it is prepared).
   * "overflowed": past the body's bytes (known once written), it begins the next batch, its bytes
   * just past the slab's end until they are moved to a slab of their own. Else the spans taken.
   */
  private takeHead(taking: Taking, rec: TraceView): number | "full" | "overflowed" | "skipped" {
    const { maxSpansPerRequest, maxRequestBytes } = this.options.batch;
    const { traces, slab } = taking;
    if (traces.length > 0 && taking.spans + rec.spans.length > maxSpansPerRequest) return "full";
    this.queue.shift();
    this.queuedSpans -= rec.spans.length;
    if (rec.discarded) return "skipped";
    const mark = slab.pos;
    let next: PreparedTrace;
    try {
      next = this.bodies.prepare(markSending(rec), slab);
    } catch (err) {
      // After this turn, as a refused request's traces are: a flush() called right after the
      // span end that took it still waits for it, and reports it.
      queueMicrotask(() => this.settlement.loseQuietly(rec, err));
      return "skipped";
    }
    if (traces.length > 0 && slab.pos + 2 > maxRequestBytes) {
      taking.overflow = next;
      slab.pos = mark;
      return "overflowed";
    }
    traces.push(next);
    taking.spans += next.spanCount;
    return next.spanCount;
  }

  /**
   * Takes queued traces into the next batch ahead of time, as they come (from {@link EARLY_SPANS}
   * queued spans on), written into its slab but not sent until the batch is due: a queued trace's
   * spans, data and captured values are let go of young, not copied by every minor GC while the
   * queue fills (workload B in bench/). Only traces with no span open are taken (one with a span
   * still running waits in the queue, where its late spans still join it, and so does what is
   * behind it), and not with a spool (whose batches are taken as before). True when the batch is
   * full: its spans, or its bytes (the trace that overflowed them begins the next batch).
   */
  private takeEarly(): boolean {
    if (this.takingDue) return false;
    const head = this.queue.peek();
    if (head === undefined || head.open > 0) return false;
    const taking = (this.taking ??= { traces: [], spans: 0, slab: this.slabs.take(this.slabBytes), early: true });
    // Within a slice, as a batch is taken: most calls take the one trace that just ended and
    // read no clock; a backlog (behind a trace that was still open) goes a slice at a time, the
    // slice counted from its first few spans.
    let deadline = -1;
    for (let unchecked = 0; ; ) {
      if (unchecked >= CHECK_EVERY_SPANS) {
        unchecked = 0;
        const now = performance.now();
        if (deadline < 0) deadline = now + SLICE_MILLIS;
        else if (now > deadline) return false;
      }
      const rec = this.queue.peek();
      if (rec === undefined || rec.open > 0) return false;
      const took = this.takeHead(taking, rec);
      if (took === "full" || took === "overflowed") {
        taking.early = false;
        return true;
      }
      if (took !== "skipped") unchecked += took;
    }
  }

  /**
   * Takes queued traces into the batch being taken, for at most SLICE_MILLIS. Returns the batch
   * once it is full or nothing is left to take; undefined while there is more to take next turn.
   */
  private takeBatch(): Taking | undefined {
    const taking = (this.taking ??= { traces: [], spans: 0, slab: this.slabs.take(this.slabBytes) });
    taking.early = false;
    const slab = taking.slab;
    const deadline = performance.now() + SLICE_MILLIS;
    // At least one trace per slice, however slow the turn: taking always moves on. The clock is
    // read every few spans (a few microseconds of work in the interpreter, well under one warm).
    // A trace that overflowed the batch's bytes (taken ahead of time, or here) ends it.
    // Spans taken since the clock was last read (only taken traces count: at least one is in).
    for (let unchecked = 0; taking.overflow === undefined; ) {
      if (unchecked >= CHECK_EVERY_SPANS && this.queue.length > 0) {
        unchecked = 0;
        if (performance.now() > deadline) return undefined;
      }
      const rec = this.queue.peek();
      if (!rec) break;
      const took = this.takeHead(taking, rec);
      if (took === "full" || took === "overflowed") break;
      if (took !== "skipped") unchecked += took;
    }
    const overflow = taking.overflow;
    taking.overflow = undefined;
    this.taking = undefined;
    this.slabBytes = Math.min(this.options.batch.maxRequestBytes, Math.max(16 * 1024, Math.ceil(slab.pos * 1.25)));
    if (overflow !== undefined) {
      const moved = moveToSlab(overflow, this.slabs.take(this.slabBytes));
      this.taking = { traces: [moved], spans: moved.spanCount, slab: moved.slab! };
    }
    return taking;
  }
}
