import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import PQueue from "p-queue";
import type { Clock, TimerHandle } from "../clock.js";
import type { BatchOptions } from "../config.js";
import type { RequestBody, TransportOutcome } from "../http/transport.js";
import { isReportableCount, type Logger, redact } from "../logger.js";
import { getSpanData, parentSpanIdOf, setParentOverride } from "../spans/span-data.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { hrTimeToIso, isLater } from "../spans/time.js";
import { ChurnMap } from "../util/churn-map.js";
import { Fifo } from "../util/fifo.js";
import { groupByKey, type KeyedTransport, keyRefusals } from "../http/keyed-transport.js";
import { joinedRemotely, UnknownTraceRetry } from "./late-retry.js";
import { isSettled, notify, readFields, type TraceRecord } from "../assemble/trace-record.js";
import { DROPPED_SPANS_KEY, isUnfinished, TRUNCATED_KEY, UNFINISHED_SPAN_KEY } from "../assemble/unfinished.js";
import { encodeRun, moveToSlab, newSlab, type PreparedTrace, recoverTraceTexts, slabBody, traceText, writeToSlab } from "../encode/batch-body.js";
import { forgetJsonText } from "../encode/json-text.js";
import { JsonBytes } from "../encode/json-bytes.js";
import { writeUpdate } from "../encode/wire-bytes.js";
import { applyTestCase, fillRequired, HEAD, NO_SPANS, shapeTraceValue, spanListKeys, type TraceHead, toWireSpan, type WireSpan, type WireTrace } from "../encode/wire.js";

/** Counters of what the exporter did; all monotonic except the gauges `queued`, `inFlight`. */
export interface ExporterStats {
  /** Traces acknowledged by the service. */
  tracesDelivered: number;
  /** Traces given up after retries or rejected by the service. */
  tracesFailed: number;
  /** Traces dropped because the queue was full (maxQueuedTraces). */
  tracesDropped: number;
  /** Retries of any request. */
  retries: number;
  /** Late updates (`PUT /v1/traces/:uuid`) acknowledged / given up. */
  updatesDelivered: number;
  updatesFailed: number;
  /** Offline evaluation requests acknowledged / given up. */
  evaluationsDelivered: number;
  evaluationsFailed: number;
  /** Late spans not sent because the service refused `PUT /v1/traces/:uuid` as unsupported. */
  spansNotUpdatable: number;
  /**
   * Late updates dropped because the service did not know the trace they extend (404) for a
   * minute of retries: a callee's spans whose caller never delivered its trace. Also in `updatesFailed`.
   */
  updatesOrphaned: number;
  /** Requests sent and JSON bytes in their bodies. */
  requests: number;
  bytesSent: number;
  /** Traces waiting for a request now: queued, or in a batch still being taken. */
  queued: number;
  /** Requests in flight now. */
  inFlight: number;
}

/** What `flush()` found. */
export interface FlushResult {
  /** True when every trace finished before the call was delivered. */
  ok: boolean;
  /** How many of those traces were delivered. */
  delivered: number;
  /**
   * Uuids of those traces that were given up (rejected, retries exhausted, or dropped), or of
   * which a late update was: spans that ended after the trace was sent, or trace fields set then.
   */
  notDelivered: string[];
  /** Uuids of those traces still undelivered when the timeout passed. */
  pending: string[];
  /** True when the timeout passed before everything settled. */
  timedOut: boolean;
}

/** Outcome of an offline evaluation request. */
export interface EvaluationOutcome {
  /**
   * `delivered`: the service accepted it. `failed`: rejected, given up, or a trace it refers to
   * was not delivered. `deferred`: the call was made inside a trace it must wait for; it goes out
   * after that trace is delivered (and `flush()` waits for it).
   */
  status: "delivered" | "failed" | "deferred";
  /** Why it failed. */
  error?: string;
}

/** The exporter's counters before anything happened. */
export function noWorkYet(): Omit<ExporterStats, "queued" | "inFlight"> {
  return {
    tracesDelivered: 0,
    tracesFailed: 0,
    tracesDropped: 0,
    retries: 0,
    updatesDelivered: 0,
    updatesFailed: 0,
    evaluationsDelivered: 0,
    evaluationsFailed: 0,
    spansNotUpdatable: 0,
    updatesOrphaned: 0,
    requests: 0,
    bytesSent: 0,
  };
}

/**
 * A flush in progress: it waits for the records that were busy when it looked (those that
 * became busy at or before `seq`, see `busy()`): `left` of them are still to settle.
 */
interface FlushWaiter {
  seq: number;
  left: number;
  wake: () => void;
}

/** Exporter options (resolved). */
export interface TraceExporterOptions {
  batch: Required<BatchOptions>;
  /** Scrubbed from every payload, should the app trace a value that contains it. */
  apiKey?: string | undefined;
  environment: string;
  flushTimeoutMillis: number;
}

/**
 * Longest stretch of taking traces into a batch (each written as JSON bytes as it is taken) in
 * one turn of the event loop: a batch is taken over as many turns as it takes. Small, because
 * the first batches of a process run in the interpreter, several times slower than later ones,
 * on the same turns as the app's own first, slow calls (bench/ workload C, p99 loop delay).
 */
const SLICE_MILLIS = 0.25;

const defer: (fn: () => void) => void =
  typeof globalThis.setImmediate === "function" ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

/** Spans taken between two readings of the clock. */
const CHECK_EVERY_SPANS = 4;

/** A batch being taken, a slice per turn: its traces, their spans, and the slab they are written in. */
interface Taking {
  traces: PreparedTrace[];
  spans: number;
  slab: JsonBytes;
}

/**
 * Batches finished traces into `POST /v1/traces` requests in the list form, sends what arrives
 * after a trace was sent as `PUT /v1/traces/:uuid`, and sends offline evaluations once what
 * they refer to is delivered. Memory is bounded by `maxQueuedTraces`.
 */
export class TraceExporter {
  private readonly queue = new Fifo<TraceRecord>();
  private queuedSpans = 0;
  /** The batch being taken, until it is full or nothing is left to take. */
  private taking: Taking | undefined;
  /** Bytes of the last batch taken: the next slab's first size. */
  private slabBytes = 16 * 1024;
  /** Where bodies and updates are written (one at a time: each is copied out before anything awaits). */
  private readonly writer = new JsonBytes();
  /**
   * Queued spans that make a batch worth sending before the interval: half a request's most
   * (measured in bench/: the spans of a batch in flight are fewer, and younger, when collected).
   */
  private get sendAt(): number {
    return Math.ceil(this.options.batch.maxSpansPerRequest / 2);
  }
  private readonly requests: PQueue;
  private timer: TimerHandle | undefined;
  private pumpScheduled = false;
  /** A forced (timer) pump ran out of its turn's budget; the next turn continues it. */
  private forcedPending = false;
  private flushing = 0;
  /** Records with work not yet done, for flush(). */
  private readonly unsettled = new ChurnMap<TraceRecord, true>();
  /** Counts records becoming busy: each gets the count as its `busyAt`, for the flushes. */
  private busySeq = 0;
  private readonly evaluations = new Set<Promise<EvaluationOutcome>>();
  /** Flushes in progress: the records each still waits for, and how to wake it. */
  private readonly flushes = new Set<FlushWaiter>();
  private stopped = false;
  /** False once the service refused the list form: one trace per request. */
  private listForm = true;
  /** False once the service refused `PUT /v1/traces/:uuid` as unsupported. */
  private putSupported = true;
  private readonly warnedFilled = new Set<string>();
  private shutdownResult: Promise<FlushResult> | undefined;
  private enqueued = 0;
  private readonly counters = noWorkYet();
  /** Late updates that reached the service before their trace, retried (late-retry.ts). */
  private readonly unknownTrace: UnknownTraceRetry;
  /** Set by the assembler once both exist (they reference each other). */
  release: (rec: TraceRecord) => void = () => {};

  constructor(
    private readonly options: TraceExporterOptions,
    private readonly transport: KeyedTransport,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.requests = new PQueue({ concurrency: options.batch.concurrency });
    // Any request that frees its slot (a batch's, a late update's, an evaluation's) lets what
    // waits for one go, on the next turn (p-queue counts the task as running until it returned).
    this.requests.on("next", () => {
      if (this.hasQueued()) this.schedulePump();
    });
    this.unknownTrace = new UnknownTraceRetry({ clock, logger, counters: this.counters, maxWaiting: options.batch.maxQueuedTraces });
  }

  /** Counts a retry; wired to the transport's `onRetry`. */
  countRetry(): void {
    this.counters.retries++;
  }

  stats(): ExporterStats {
    return { ...this.counters, queued: this.queuedTraces(), inFlight: this.requests.pending };
  }

  /** Queues a trace whose root ended. Drops it (counted) when the queue is full. */
  enqueue(rec: TraceRecord): void {
    if (this.stopped || this.queuedTraces() >= this.options.batch.maxQueuedTraces) {
      this.counters.tracesDropped++;
      this.fail(rec, this.stopped ? "the SDK was shut down" : "the export queue was full (maxQueuedTraces)");
      const n = this.counters.tracesDropped;
      if (isReportableCount(n)) {
        this.logger.warn(
          `${n} trace(s) dropped so far: ${this.stopped ? "SDK shut down" : `export queue full (maxQueuedTraces=${this.options.batch.maxQueuedTraces})`}`,
        );
      }
      return;
    }
    this.busy(rec);
    this.enqueued++;
    this.queue.push(rec);
    this.queuedSpans += rec.spans.length;
    // Half a request's worth: it goes out now, from the span end that made it so, when a request
    // slot is free (as OpenTelemetry's batch processor does), so that finished traces do not pile
    // up, and grow old in the heap, while the app runs without yielding. A slice of a batch, of
    // SLICE_MILLIS; with no free slot, the request that frees one pumps again.
    if (this.queuedSpans >= this.sendAt) this.pump();
    else this.armTimer();
  }

  /** Schedules the late update of a trace that was already handed to a request. */
  scheduleUpdate(rec: TraceRecord): void {
    this.busy(rec);
    if (rec.phase === "sent" && !rec.putInFlight) {
      rec.putInFlight = true;
      void this.sendUpdates(rec);
    }
    // While the POST is in flight, its completion picks the update up.
  }

  /**
   * Sends an offline evaluation once `ready()` says that what it refers to was delivered (it
   * resolves with why not, when it was not). With `deferred`, the caller is inside a trace the
   * evaluation waits for, so the returned promise resolves at once (awaiting it would never end);
   * the request still goes out later and `flush()` waits for it.
   */
  evaluate(path: string, body: Record<string, unknown>, ready: () => Promise<string | undefined>, deferred = false, apiKey?: string): Promise<EvaluationOutcome> {
    const run = async (): Promise<EvaluationOutcome> => {
      // What the evaluation waits for goes out now, not at the next batch interval.
      this.pump(true);
      const notReady = await ready();
      if (notReady) {
        this.counters.evaluationsFailed++;
        this.logger.warn(`offline evaluation ${path} not sent: ${notReady}`);
        return { status: "failed", error: notReady };
      }
      const json = JSON.stringify(body);
      const outcome = await this.requests.add(() => this.send("POST", path, json, apiKey));
      if (outcome.ok) {
        this.counters.evaluationsDelivered++;
        return { status: "delivered" };
      }
      this.counters.evaluationsFailed++;
      this.logger.warn(`offline evaluation ${path} failed: ${outcome.message}`);
      return { status: "failed", error: outcome.message };
    };
    const p = run().catch((err: unknown) => ({ status: "failed" as const, error: String(err) }));
    this.evaluations.add(p);
    // The caller may await it: the process lives until it settles (at most flushTimeoutMillis).
    const keepAlive = deferred ? undefined : this.clock.setTimeout(() => {}, this.options.flushTimeoutMillis, true);
    void p.then(() => {
      this.evaluations.delete(p);
      if (keepAlive !== undefined) this.clock.clearTimeout(keepAlive);
    });
    return deferred ? Promise.resolve({ status: "deferred" }) : p;
  }

  /**
   * Sends everything finished so far now and resolves when all of it was delivered or given
   * up, or when `timeoutMillis` passed. With `drain`, what finishes meanwhile is waited for too,
   * until nothing is left. Keeps the process alive while it waits (its caller awaits it). Never
   * rejects.
   */
  async flush(timeoutMillis = this.options.flushTimeoutMillis, drain = false): Promise<FlushResult> {
    // An array, not a set: a flush of many traces (a serverless handler's, a benchmark's) pays
    // no hashing for them; only a draining flush, which adds what finishes meanwhile, keeps a set.
    const records = [...this.unsettled.keys()];
    let seen: Set<TraceRecord> | undefined;
    let evaluations = [...this.evaluations];
    this.flushing++;
    this.pump();
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
    try {
      for (;;) {
        // Every busy record is waited for (all of them are in `records`): one that is settled
        // already but was not told so is settled now, so that each one left wakes this once.
        for (const r of this.unsettled.keys()) if (isSettled(r)) this.settleIfIdle(r);
        entry.seq = this.busySeq;
        entry.left = this.unsettled.size;
        if (entry.left === 0 && evaluations.length === 0) break;
        const settledAll = new Promise<void>((resolve) => {
          entry.wake = resolve;
          if (entry.left === 0) resolve();
          else this.flushes.add(entry);
        });
        await Promise.race([Promise.all([settledAll, ...evaluations]), timeout]);
        this.flushes.delete(entry);
        if (timedOut || !drain) break;
        seen ??= new Set(records);
        for (const r of this.unsettled.keys()) {
          if (seen.has(r)) continue;
          seen.add(r);
          records.push(r);
        }
        evaluations = [...this.evaluations];
        this.pump();
      }
    } finally {
      this.flushing--;
      this.flushes.delete(entry);
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
    const all = records.filter((r) => !r.discarded || r.phase !== "failed");
    const notDelivered = all.filter((r) => r.phase === "failed" || r.partLost !== undefined).map((r) => r.uuid);
    const pending = all.filter((r) => !isSettled(r)).map((r) => r.uuid);
    const delivered = all.length - notDelivered.length - pending.length;
    const result = { ok: notDelivered.length === 0 && pending.length === 0, delivered, notDelivered, pending, timedOut };
    if (!result.ok) {
      this.logger.warn(
        `flush: ${delivered} trace(s) delivered, ${notDelivered.length} given up, ${pending.length} still pending${timedOut ? ` after ${timeoutMillis} ms` : ""}`,
      );
    }
    return result;
  }

  /**
   * Delivers everything, what finishes meanwhile included (within `timeoutMillis`), then refuses
   * new traces, closes the transport (nothing retries after it) and resolves with the truth:
   * whatever was not delivered is in the result. Idempotent.
   */
  async shutdown(timeoutMillis = this.options.flushTimeoutMillis): Promise<FlushResult> {
    this.shutdownResult ??= (async () => {
      const result = await this.flush(timeoutMillis, true);
      this.stopped = true;
      this.unknownTrace.stop();
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      await this.transport.close();
      // What is still queued can no longer go out: given up, counted, and let go.
      const left = [...(this.taking?.traces ?? []).map((p) => p.rec), ...this.queue.drain()];
      this.taking = undefined;
      this.queuedSpans = 0;
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
    })();
    return this.shutdownResult;
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
    return this.unsettled.size > 0 || this.evaluations.size > 0;
  }

  /**
   * Lets go of a trace the app dropped: still queued, it is taken out (never sent); sent, its
   * late updates are forgotten. Not a loss: `flush()` does not report it.
   */
  discard(rec: TraceRecord): void {
    if (rec.phase === "queued") {
      this.queuedSpans -= rec.spans.length;
      rec.spans = [];
      rec.phase = "failed";
      rec.failure = "dropped by the app";
    }
    rec.late = undefined;
    this.settleIfIdle(rec);
  }

  private busy(rec: TraceRecord): void {
    if (rec.busy) return;
    rec.busy = true;
    rec.busyAt = ++this.busySeq;
    this.unsettled.set(rec, true);
  }

  private settleIfIdle(rec: TraceRecord): void {
    if (rec.busy && isSettled(rec)) {
      rec.busy = false;
      this.unsettled.delete(rec);
      for (const f of this.flushes) if (rec.busyAt <= f.seq && --f.left === 0) f.wake();
    }
    notify(rec);
    this.release(rec);
  }

  /**
   * Gives up traces that could not be encoded or sent because of a bug of ours (nothing the app
   * or the service did): counted and reported, never thrown into the app.
   */
  private lose(batch: readonly { rec: TraceRecord }[], err: unknown): void {
    this.giveUp(
      batch.filter((p) => p.rec.phase !== "sent" && p.rec.phase !== "failed"),
      `the SDK could not encode or send them (${String(err)})`,
    );
  }

  /** {@link lose} of one trace, from a microtask: nothing may escape into the app as an uncaught error. */
  private loseQuietly(rec: TraceRecord, err: unknown): void {
    try {
      this.lose([{ rec }], err);
    } catch {
      // lose() only counts, logs (the logger never throws) and settles: nothing is left to do.
    }
  }

  /** Gives up traces of a batch: counted, reported once, each failed with the reason. */
  private giveUp(batch: readonly { rec: TraceRecord }[], reason: string): void {
    if (batch.length === 0) return;
    this.counters.tracesFailed += batch.length;
    this.logger.error(`${batch.length} trace(s) not delivered: ${reason}`);
    for (const p of batch) this.fail(p.rec, reason);
  }

  private fail(rec: TraceRecord, reason: string): void {
    rec.phase = "failed";
    rec.failure = reason;
    rec.late = undefined;
    rec.spans = [];
    this.settleIfIdle(rec);
  }

  private armTimer(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.pump(true);
    }, this.options.batch.flushIntervalMillis);
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
    const { concurrency } = this.options.batch;
    if (this.hasQueued() && this.requests.pending + this.requests.size < concurrency) {
      const partialOk = force || this.flushing > 0 || this.stopped;
      if (partialOk || this.queuedSpans >= this.sendAt || this.taking !== undefined) {
        const taken = this.takeBatch();
        if (taken !== undefined && taken.traces.length > 0) {
          const { traces, slab } = taken;
          void this.requests.add(() => this.sendBatch(traces, false, slab)).catch((err: unknown) => this.lose(traces, err));
        }
        if (this.taking !== undefined || (this.hasQueued() && (partialOk || this.queuedSpans >= this.sendAt))) {
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

  private hasQueued(): boolean {
    return this.queue.length > 0 || this.taking !== undefined;
  }

  /** Traces waiting for a request: queued, or in the batch being taken. */
  private queuedTraces(): number {
    return this.queue.length + (this.taking?.traces.length ?? 0);
  }

  /**
   * Takes queued traces into the batch being taken, for at most SLICE_MILLIS. Returns the batch
   * once it is full or nothing is left to take; undefined while there is more to take next turn.
   */
  private takeBatch(): Taking | undefined {
    const { maxSpansPerRequest, maxRequestBytes } = this.options.batch;
    const taking = (this.taking ??= { traces: [], spans: 0, slab: newSlab(this.slabBytes) });
    const { traces, slab } = taking;
    const deadline = performance.now() + SLICE_MILLIS;
    // At least one trace per slice, however slow the turn: taking always moves on. The clock is
    // read every few spans (a few microseconds of work in the interpreter, well under one warm).
    let overflow: PreparedTrace | undefined;
    // Spans taken since the clock was last read (only taken traces count: at least one is in).
    for (let unchecked = 0; ; ) {
      if (unchecked >= CHECK_EVERY_SPANS && this.queue.length > 0) {
        unchecked = 0;
        if (performance.now() > deadline) return undefined;
      }
      const rec = this.queue.peek();
      if (!rec) break;
      // A trace that would take the batch past the span limit is left queued, unwritten: the
      // batch stays exactly its slab's traces, and is its body (a trace's spans can only be
      // fewer once it is prepared).
      if (traces.length > 0 && taking.spans + rec.spans.length > maxSpansPerRequest) break;
      this.queue.shift();
      this.queuedSpans -= rec.spans.length;
      if (rec.discarded) continue;
      const mark = slab.pos;
      let next: PreparedTrace;
      try {
        next = this.prepare(rec, slab);
      } catch (err) {
        // After this turn, as a refused request's traces are: a flush() called right after
        // the span end that took it still waits for it, and reports it.
        queueMicrotask(() => this.loseQuietly(rec, err));
        continue;
      }
      // The body, closed, past the byte limit (known once written): the trace begins the next
      // batch, moved to a slab of its own, so that both batches are exactly their slabs' traces.
      if (traces.length > 0 && slab.pos + 2 > maxRequestBytes) {
        overflow = next;
        slab.pos = mark;
        break;
      }
      traces.push(next);
      taking.spans += next.spanCount;
      unchecked += next.spanCount;
    }
    this.taking = undefined;
    this.slabBytes = Math.min(maxRequestBytes, Math.max(16 * 1024, Math.ceil(slab.pos * 1.25)));
    if (overflow !== undefined) {
      const moved = moveToSlab(overflow, newSlab(this.slabBytes));
      this.taking = { traces: [moved], spans: moved.spanCount, slab: moved.slab! };
    }
    return taking;
  }

  /**
   * Builds the wire trace and writes it into `slab`; from here on, spans of this trace that end
   * are late updates.
   */
  private prepare(rec: TraceRecord, slab: JsonBytes): PreparedTrace {
    rec.phase = "sending";
    const root = rec.root!;
    // The trace's fields are read without making them (most traces set none); a dropped-span
    // count goes into its metadata, which then must exist.
    const f = rec.droppedSpans > 0 ? rec.fields : readFields(rec);
    const rootData = getSpanData(root);
    // Every field the trace always has is made here, the lists empty: filling them in below
    // neither reshapes the object nor makes a separate object of lists. The symbol comes last:
    // V8 keeps in the object itself only the fields a literal names before a computed key.
    const wire: WireTrace = {
      name: f.name ?? root.name,
      status: root.status.code === 2 ? "ERRORED" : "SUCCESS",
      environment: f.environment ?? this.options.environment,
      baseSpans: NO_SPANS,
      llmSpans: NO_SPANS,
      retrieverSpans: NO_SPANS,
      agentSpans: NO_SPANS,
      toolSpans: NO_SPANS,
      input: undefined,
      output: undefined,
      [HEAD]: NO_HEAD,
    };
    let endTime = root.endTime;
    let rootWire: WireSpan | undefined;
    resolveParents(rec, rec.spans);
    const spans = rec.open > 0 ? holdBack(rec, rec.spans) : rec.spans;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const spanWire = toWireSpan(span);
      this.fillRequired(spanWire);
      if (isUnfinished(span)) markUnfinished(spanWire);
      if (span === root) rootWire = spanWire;
      // A list of exactly one for the first span of a type (push would make room for 17).
      const key = spanListKeys[spanWire.type];
      const list = wire[key];
      if (list === NO_SPANS) wire[key] = [spanWire];
      else list.push(spanWire);
      if (isLater(span.endTime, endTime)) endTime = span.endTime;
    }
    const spanCount = spans.length;
    rec.spans = [];
    wire[HEAD] = { traceId: rec.traceId, start: root.startTime, end: endTime };
    if (f.name === undefined && rootWire) wire.name = rootWire.name;
    // Spans of other instrumentations carry no span data: their mapped fields stand in.
    const input = f.input ?? rootData?.input ?? rootWire?.input;
    const output = f.output ?? rootData?.output ?? rootWire?.output;
    if (input !== undefined) wire.input = shapeTraceValue(input);
    if (output !== undefined) wire.output = shapeTraceValue(output);
    if (f.tags.length > 0) wire.tags = [...new Set(f.tags)];
    if (rec.droppedSpans > 0) {
      f.metadata[TRUNCATED_KEY] = true;
      f.metadata[DROPPED_SPANS_KEY] = rec.droppedSpans;
      rec.droppedReported = rec.droppedSpans;
    }
    if (hasOwnKeys(f.metadata)) wire.metadata = f.metadata;
    if (f.threadId !== undefined) wire.threadId = f.threadId;
    if (f.userId !== undefined) wire.userId = f.userId;
    if (f.metricCollection !== undefined) wire.metricCollection = f.metricCollection;
    if (f.llmTestCase !== undefined) wire.llmTestCase = f.llmTestCase;
    Object.assign(wire, f.extra);
    // A trace's test case is also its input/output (unless the app set those) and flat fields.
    if (f.llmTestCase !== undefined) applyTestCase(wire, "trace", f.input === undefined, f.output === undefined);
    forgetJsonText();
    // The wire object stands for the spans from here on.
    rec.root = undefined;
    keptShapes.wireTrace = wire;
    return writeToSlab(slab, rec, wire, spanCount, endTime);
  }

  /**
   * Sends a batch. `maybeStored`: an earlier request carrying these traces may have been stored
   * although its answer was lost, so a 409 ("already exists") for one of them means delivered.
   */
  private async sendBatch(batch: PreparedTrace[], maybeStored = false, slab?: JsonBytes): Promise<void> {
    if (!this.listForm) {
      await Promise.all(batch.map((p) => this.sendSingle(p, maybeStored)));
      return;
    }
    // Traces routed to other projects' keys: one request per key, never mixed.
    const byKey = batch.some((p) => p.rec.apiKey !== undefined) ? groupByKey(batch) : [batch];
    if (byKey.length > 1) {
      await Promise.all(byKey.map((group) => this.sendBatch(group, maybeStored)));
      return;
    }
    const secrets = [this.options.apiKey, batch[0]?.rec.apiKey];
    // As a rule, the batch is its slab's traces: the slab is the body.
    const whole = slab && slabBody(slab, batch, secrets);
    if (whole !== undefined) {
      for (const p of batch) p.slab = undefined;
      await this.postBatch(batch, whole, maybeStored);
      return;
    }
    // Otherwise as many requests as it takes to stay within maxRequestBytes, one after the
    // other, each body made of its traces' bytes just before it goes.
    for (let from = 0; from < batch.length; ) {
      const run = encodeRun(batch, from, { maxBytes: this.options.batch.maxRequestBytes, secrets, writer: this.writer });
      const part = from === 0 && run.to === batch.length ? batch : batch.slice(from, run.to);
      from = run.to;
      await this.postBatch(part, run.body, maybeStored);
    }
  }

  /** Posts a batch's body and settles its traces by the answer. */
  private async postBatch(batch: PreparedTrace[], body: RequestBody, maybeStored: boolean): Promise<void> {
    const outcome = await this.send("POST", "/v1/traces", body, batch[0]?.rec.apiKey);
    if (!outcome.ok && outcome.status !== undefined && shapeRefusals.has(outcome.status)) {
      // A service that does not take the list form (the spec allows both): one trace per
      // request, for the rest of the process.
      this.listForm = false;
      this.logger.warn(`the service refused the list form of POST /v1/traces (${outcome.message}); sending one trace per request from now on`);
      recoverTraceTexts(batch, body);
      await this.sendBatch(batch, maybeStored || outcome.attempts > 1);
      return;
    }
    const stored = maybeStored || outcome.attempts > 1;
    if (outcome.ok || (outcome.status === 409 && batch.length === 1 && stored)) {
      this.counters.tracesDelivered += batch.length;
      for (const p of batch) this.delivered(p);
    } else if (outcome.status !== undefined && outcome.status < 500 && batch.length > 1 && !keyRefusals.has(outcome.status)) {
      // One invalid trace must not take its batch-mates down with it: split and resend.
      recoverTraceTexts(batch, body);
      const half = Math.ceil(batch.length / 2);
      await Promise.all([this.sendBatch(batch.slice(0, half), stored), this.sendBatch(batch.slice(half), stored)]);
    } else {
      this.giveUp(batch, outcome.message);
    }
  }

  /** One trace in the single-trace form of `POST /v1/traces`. */
  private async sendSingle(p: PreparedTrace, maybeStored: boolean): Promise<void> {
    let text: string;
    try {
      text = traceText(p, [this.options.apiKey, p.rec.apiKey]);
    } catch (err) {
      // Given up alone, as in the list form: the batch's other traces go.
      await undefined;
      this.lose([p], err);
      return;
    }
    const outcome = await this.send("POST", "/v1/traces", text, p.rec.apiKey);
    if (outcome.ok || (outcome.status === 409 && (maybeStored || outcome.attempts > 1))) {
      this.counters.tracesDelivered++;
      this.delivered(p);
    } else {
      this.counters.tracesFailed++;
      this.logger.error(`trace ${p.rec.uuid} not delivered: ${outcome.message}`);
      this.fail(p.rec, outcome.message);
    }
  }

  /** Fills the fields the service requires in practice, warning once per field. */
  private fillRequired(wire: WireSpan): void {
    const filled = fillRequired(wire);
    // Indexed: most spans fill nothing, and an iterator would be made for each.
    for (let i = 0; i < filled.length; i++) {
      const field = filled[i]!;
      if (this.warnedFilled.has(field)) continue;
      this.warnedFilled.add(field);
      this.logger.warn(
        `${field === "model" ? "an llm span" : "a retriever span"} had no ${field}; sent as "${wire[field]}" (the service requires one: set it in observe() options or updateCurrentSpan)`,
      );
    }
  }

  private delivered(p: PreparedTrace): void {
    const rec = p.rec;
    if (rec.phase === "failed") return;
    rec.phase = "sent";
    rec.sentEndTime = p.endTime;
    if (rec.late && !rec.putInFlight) {
      rec.putInFlight = true;
      void this.sendUpdates(rec);
    }
    this.settleIfIdle(rec);
  }

  /** Sends the late updates of a delivered trace, one PUT at a time, until none is left. */
  private async sendUpdates(rec: TraceRecord): Promise<void> {
    while (rec.late && rec.phase === "sent") {
      const late = rec.late;
      rec.late = undefined;
      const candidates = rec.held ? [...rec.held.splice(0), ...late.spans] : late.spans;
      resolveParents(rec, candidates);
      late.spans = holdBack(rec, candidates);
      const body: Record<string, unknown> = {};
      const lists: Partial<Record<string, WireSpan[]>> = {};
      let endTime = rec.sentEndTime;
      for (const span of late.spans) {
        const wire = toWireSpan(span);
        this.fillRequired(wire);
        if (isUnfinished(span)) markUnfinished(wire);
        const key = spanListKeys[wire.type];
        (lists[key] ??= []).push(wire);
        if (!endTime || isLater(span.endTime, endTime)) endTime = span.endTime;
      }
      Object.assign(body, lists);
      if (endTime && rec.sentEndTime !== endTime && !joinedRemotely.has(rec)) body.endTime = hrTimeToIso(endTime);
      if (late.output !== undefined) body.output = shapeTraceValue(late.output);
      if (late.environment !== undefined) body.environment = late.environment;
      let metadata = late.metadata;
      if (rec.droppedSpans > rec.droppedReported) {
        metadata = { ...metadata, [TRUNCATED_KEY]: true, [DROPPED_SPANS_KEY]: rec.droppedSpans };
        rec.droppedReported = rec.droppedSpans;
      }
      if (metadata) body.metadata = metadata;
      if (late.tags) body.tags = late.tags;
      if (Object.keys(body).length === 0) continue;
      if (!this.putSupported) {
        this.counters.spansNotUpdatable += late.spans.length;
        if (joinedRemotely.has(rec)) this.fail(rec, "the service does not take PUT /v1/traces/:uuid");
        else rec.partLost = "the service does not take PUT /v1/traces/:uuid";
        continue;
      }
      const path = `/v1/traces/${encodeURIComponent(rec.uuid)}`;
      const w = this.writer;
      w.reset();
      writeUpdate(w, body);
      const json = redact(w.text(), [this.options.apiKey, rec.apiKey]);
      const outcome = await this.unknownTrace.put(rec, () => this.requests.add(() => this.send("PUT", path, json, rec.apiKey)));
      if (!outcome.ok && outcome.status !== undefined && putRefusals.has(outcome.status)) {
        const first = this.putSupported;
        this.putSupported = false;
        this.counters.spansNotUpdatable += late.spans.length;
        if (first) this.logger.warn(
          `the service refused PUT /v1/traces/:uuid (${outcome.message}): what ends after its trace was sent is not delivered from now on (${late.spans.length} span(s) so far; stats().spansNotUpdatable counts them)`,
        );
        if (joinedRemotely.has(rec)) this.fail(rec, outcome.message);
        else rec.partLost = outcome.message;
        notify(rec);
        continue;
      }
      // 409 to a retry: an earlier attempt whose answer was lost stored it ("already stored").
      if (outcome.ok || storedByEarlierAttempt(outcome)) {
        this.counters.updatesDelivered++;
        rec.sentEndTime = endTime;
      } else {
        this.counters.updatesFailed++;
        this.logger.error(`late update of trace ${rec.uuid} not delivered (${late.spans.length} span(s)): ${outcome.message}`);
        // A callee's part of another process's trace is all it sends of it: not delivered.
        if (joinedRemotely.has(rec)) this.fail(rec, outcome.message);
        else rec.partLost = outcome.message;
      }
      notify(rec);
    }
    rec.putInFlight = false;
    this.settleIfIdle(rec);
  }

  private async send(method: "POST" | "PUT", path: string, body: RequestBody, apiKey?: string) {
    this.counters.requests++;
    this.counters.bytesSent += body.length;
    return this.transport.send(method, path, body, apiKey);
  }
}

/** Points each span past left-out spans of other instrumentations, to its nearest kept ancestor. */
function resolveParents(rec: TraceRecord, spans: ReadableSpan[]): void {
  const transparent = rec.transparent;
  if (!transparent || transparent.size === 0) return;
  for (const span of spans) {
    let parent = parentSpanIdOf(span);
    let moved = false;
    for (let hops = 0; parent !== undefined && transparent.has(parent) && hops < 10_000; hops++) {
      parent = transparent.get(parent) ?? undefined;
      moved = true;
    }
    if (moved) setParentOverride(span, parent ?? null);
  }
}

/**
 * The spans that can go out now: a span whose parent is still open (or held itself) waits in
 * `rec.held` until that parent ends, so that no request names a parent the service has not got.
 */
function holdBack(rec: TraceRecord, spans: ReadableSpan[]): ReadableSpan[] {
  if (rec.open === 0 && !rec.held?.length) return spans;
  const waiting: string[] = [];
  for (const open of rec.openSpans) waiting.push(open.spanContext().spanId);
  if (waiting.length === 0) return spans;
  // Children by parent, once; then everything under an open span, breadth first: linear.
  const children = new Map<string, ReadableSpan[]>();
  for (const span of spans) {
    const parent = parentSpanIdOf(span);
    if (parent === undefined) continue;
    const list = children.get(parent);
    if (list) list.push(span);
    else children.set(parent, [span]);
  }
  const held = new Set<ReadableSpan>();
  for (let i = 0; i < waiting.length; i++) {
    for (const child of children.get(waiting[i]!) ?? []) {
      if (held.has(child)) continue;
      held.add(child);
      waiting.push(child.spanContext().spanId);
    }
  }
  if (held.size === 0) return spans;
  (rec.held ??= []).push(...spans.filter((s) => held.has(s)));
  return spans.filter((s) => !held.has(s));
}

/** Answers to the list form that mean "not this shape" (the spec allows the single-trace form too). */
const shapeRefusals = new Set([404, 405, 415, 422]);
/** Answers to `PUT /v1/traces/:uuid` that mean the service does not take it at all. */
const putRefusals = new Set([405, 415, 501]);

/** A 409 answering a retry: the attempt whose answer was lost had stored it. */
function storedByEarlierAttempt(outcome: TransportOutcome): boolean {
  return !outcome.ok && outcome.status === 409 && outcome.attempts > 1;
}

/** Whether an object has an own enumerable key, without making the list of them. */
function hasOwnKeys(obj: object): boolean {
  for (const key in obj) if (Object.hasOwn(obj, key)) return true;
  return false;
}

/** A trace's head until its spans are read (replaced before it is written). */
const NO_HEAD: TraceHead = Object.freeze({ traceId: "", start: [0, 0] as HrTime, end: [0, 0] as HrTime });

function markUnfinished(wire: WireSpan): void {
  wire.metadata = { ...wire.metadata, [UNFINISHED_SPAN_KEY]: true };
}

