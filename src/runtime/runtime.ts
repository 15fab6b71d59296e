import { spansWithoutTestCaseCount } from "../util/spans-without-test-case.js";
import { defaultEmbedderCount } from "../util/default-embedder.js";
import { internalErrorCount, reportInternalError } from "../util/internal-errors.js";
import { netSpanCount } from "../util/net-spans.js";
import { type Attributes, type Context, type HrTime, type Span, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan, Span as SdkSpan } from "@opentelemetry/sdk-trace-base";
import type { ResolvedOptions } from "../config/options.js";
import { type SafeTraceUpdate, TraceAssembler } from "../traces/trace-assembler.js";
import type { TraceView } from "../traces/trace-view.js";
import { waitFor } from "../traces/trace-waiters.js";
import { TraceBodies } from "../encode/trace-body.js";
import { Evaluations } from "../export/evaluations.js";
import { LateUpdates } from "../export/late-updates.js";
import { Requests } from "../export/requests.js";
import { Settlement } from "../export/settlement.js";
import { TraceExporter } from "../export/trace-exporter.js";
import { replaySender } from "../export/spool/replay-send.js";
import { TraceSpool } from "../export/spool/trace-spool.js";
import { type EvaluationOutcome, type ExporterStats, type FlushResult, noWorkYet } from "../export/types.js";
import { KeyedTransport } from "../http/keyed-transport.js";
import { type Logger, safeLogger } from "../logger.js";
import { traceUuid } from "../spans/ids.js";
import type { ObservedSpan } from "../spans/observed-span.js";
import { SPAN_TYPE_ATTRIBUTE, type SpanData } from "../spans/span-data.js";
import { type ParentSpan, type SpanSource, startObservedSpan } from "../spans/observed-tracer.js";
import { type DrainRequest, drain } from "./drain.js";
import { inAbortedNextPrerender } from "./next-prerender.js";
import { TappedSink } from "./tapped-sink.js";
import { appBridged, ModelCallFold, noteIntegrationModelCall } from "../traces/model-call-fold.js";
import { isCapturing } from "./trace-tap.js";

/** Counters of the whole SDK: the exporter's plus what was dropped before export. */
export interface SdkStats extends ExporterStats {
  /** Whether tracing records now (configured with a key, enabled, not shut down). */
  enabled: boolean;
  /** Traces not recorded because `maxOpenTraces` traces were open. */
  tracesNotRecorded: number;
  /** Spans dropped because their trace reached `maxSpansPerTrace` (the trace went out marked as truncated). */
  spansDropped: number;
  /** Traces sent before all their spans ended (`maxTraceDurationMillis`, `deliver()` or `shutdown()` timeouts). */
  tracesForceEnded: number;
  /** Spans sent still open, closed at the time their trace was sent, and marked `evaltrace.unfinished`. */
  spansForceEnded: number;
  /** Of those, spans that really ended later: ignored (the service cannot update a stored span). */
  spansEndedAfterForceEnd: number;
  /** Traces whose spans are still open or unsent, held in memory now. */
  openTraces: number;
  /** Traces the app dropped with `updateCurrentTrace({ drop: true })` before any of them was sent. */
  tracesDiscarded: number;
  /** Spans of dropped traces that ended after the drop (late ones included): not sent. */
  spansDiscarded: number;
  /** Failures inside evaltrace caught so that the app never saw them (a span processor callback, a zero-code hook ...), for the process: each logged at the 1st, 10th, 100th ... */
  internalErrors: number;
  /** Model requests that no integration's method-level wrapper saw, recorded as llm spans by the net below them (metadata `evaltrace.recordedBy: "net"`), for the process. */
  netSpans: number;
  /** Retriever spans of an integration whose embedding model could not be read, sent with the `default-embedder` placeholder (no warning: the app did nothing wrong), for the process. */
  retrieverEmbeddersDefaulted: number;
  /** Spans that ended with a `metricCollection` but no `llmTestCase` (so not evaluated: the first of each collection is logged), for the process. */
  spansWithoutTestCase: number;
  /** Traces dropped because a model call in them failed when Next.js aborted the prerender that made it (Cache Components: the model never received it; docs/nextjs.md). */
  tracesAbortedByPrerender: number;
  /**
   * Model requests recorded both by one of our integrations (zero-code, a wrapper) and by the
   * app's framework telemetry through `EvaltraceSpanProcessor`, with nothing tying the two (the
   * framework ran the model outside its span's context): kept once, as the framework's span,
   * filled in from ours (docs/opentelemetry.md).
   */
  modelCallsFolded: number;
}

/** What `dropTrace` did: see {@link TraceAssembler.drop}. */
export type DropOutcome = "dropped" | "partly" | "unknown" | "again";

/**
 * The SDK's live parts, made by `configure()` or lazily on first use: the composition root. It
 * keeps its parts (the assembler, the exporter, the transport) to itself; the floors above ask it
 * for what they need (`routeTrace`, `updateTrace`, `dropTrace`, `whenDelivered`, `drain` ...) and
 * read traces only as read-only views.
 */
export class Runtime {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  private readonly assembler: TraceAssembler;
  private readonly exporter: TraceExporter;
  private readonly transport: KeyedTransport;
  private readonly fold: ModelCallFold;
  /** How observed spans reach the assembler, and how a new trace is admitted. */
  private readonly spans: SpanSource;
  private shutdownPromise: Promise<FlushResult> | undefined;
  /** The exporter's count of traces handed off when the way out last flushed (once per new work). */
  private exitFlushedAt: number | undefined;
  /** Traces dropped because Next.js aborted the prerender that made their model call. */
  private tracesAbortedByPrerender = 0;

  constructor(options: ResolvedOptions) {
    this.options = options;
    // Per-trace keys (observe({ apiKey })) are as secret as the configured one.
    // (The transport is made after the logger: warnings about options come before it.)
    this.logger = safeLogger(options.logger, () => {
      const perTrace = this.transport?.keys() ?? [];
      return options.apiKey ? [options.apiKey, ...perTrace] : perTrace;
    });
    for (const problem of options.envProblems) this.logger.warn(problem);
    const { clock } = options;
    const logger = this.logger;
    // The exporter's counters: each of its parts counts in them what it does.
    const counters = noWorkYet();
    this.transport = new KeyedTransport({
      ...options,
      logger,
      onRetry: () => {
        counters.retries++;
      },
    });
    const requests = new Requests(this.transport, counters, options.batch.concurrency);
    const bodies = new TraceBodies(options, logger);
    // Settled records are let go by the assembler, made below (the exporter is its sink).
    const settlement = new Settlement({ clock, logger, counters, onSettled: (rec) => this.assembler.release(rec) });
    // The disk spool, only when asked for: nothing of node:fs is loaded otherwise.
    const spool = options.spool && options.enabled && options.apiKey ? new TraceSpool(options.spool, counters, replaySender(requests), clock, logger) : undefined;
    this.exporter = new TraceExporter(options, {
      requests,
      bodies,
      settlement,
      lateUpdates: new LateUpdates({ requests, bodies, settlement, counters, clock, logger, apiKey: options.apiKey, maxWaiting: options.batch.maxQueuedTraces }),
      evaluations: new Evaluations({ requests, settlement, counters, clock, logger, flushTimeoutMillis: options.flushTimeoutMillis }),
      counters,
      clock,
      logger,
      spool,
    });
    spool?.start();
    // Traces a capture of evaltrace/testing claims go to it instead of the exporter.
    const tapped = new TappedSink({ exporter: this.exporter, bodies, logger, release: (rec) => this.assembler.release(rec) });
    // A model request the app's framework telemetry recorded too is kept once, as its span.
    this.fold = new ModelCallFold(tapped, {
      clock,
      appBridged,
      capturing: isCapturing,
      unsent: (traceId) => {
        const phase = this.assembler.get(traceId)?.phase;
        return phase === "open" || phase === "queued";
      },
      drop: (traceId) => this.assembler.drop(traceId, false),
    });
    this.assembler = new TraceAssembler(this.fold, options, logger);
    const assembler = this.assembler;
    this.spans = {
      onStart: (span: ObservedSpan, parentContext: Context, parent: ParentSpan) => assembler.onStart(span, parentContext, parent),
      onEnd: (span: ReadableSpan) => {
        assembler.onEnd(span);
        if (span.status.code === SpanStatusCode.ERROR && span.attributes[SPAN_TYPE_ATTRIBUTE] === "llm" && inAbortedNextPrerender()) this.dropPrerendered(span);
      },
      // A root is kept with probability sampleRate, and only while the assembler can hold another trace.
      admitRoot: () => !this.isShutdown && this.samplesIn() && assembler.admitNewTrace(),
    };
    if (options.enabled && options.apiKey) this.transport.warm();
  }

  /**
   * Opens one of our spans under `parent` (by default the span of `parentContext`; children follow
   * their parent's sampling). Our spans go through no OpenTelemetry provider: only this runtime's assembler sees them.
   */
  startSpan(name: string, startTime: HrTime, attributes: Attributes, parentContext: Context, parent?: ParentSpan): Span {
    return startObservedSpan(name, startTime, attributes, parentContext, this.spans, parent);
  }

  /** Whether a new trace is sampled in: with probability sampleRate, always while a capture runs. */
  samplesIn(): boolean {
    const rate = this.options.sampleRate;
    return rate >= 1 || isCapturing() || Math.random() < rate;
  }

  get isShutdown(): boolean {
    return this.shutdownPromise !== undefined;
  }

  /** Whether tracing records new traces now (while a capture of evaltrace/testing runs, always, until shutdown). */
  get isRecording(): boolean {
    return (this.exports || isCapturing()) && !this.isShutdown;
  }

  /**
   * Whether spans of traces already running are still recorded: until the exporter stopped, so
   * that what ends while `shutdown()` drains (or after a `configure()` replaced this runtime)
   * still lands in its trace.
   */
  get acceptsSpans(): boolean {
    return (this.exports || isCapturing()) && !this.exporter.isStopped;
  }

  /** Configured to send traces: enabled, with a key (a capture records without either, and sends nothing). */
  private get exports(): boolean {
    return this.options.enabled && this.options.apiKey !== undefined;
  }

  /**
   * Nothing held, queued, in flight or in its disk spool: a replaced runtime can be let go. One
   * whose traces are on disk is kept (shutdown() and the exit hooks then replay them and close its
   * spool, releasing its lock): dropped, its segments would stay owned by a token that still runs.
   */
  get isIdle(): boolean {
    return this.assembler.openTraces === 0 && !this.exporter.hasPendingWork && this.exporter.stats().spooled === 0;
  }

  stats(): SdkStats {
    const a = this.assembler;
    return {
      ...this.exporter.stats(),
      enabled: this.isRecording,
      tracesNotRecorded: a.droppedTraces,
      spansDropped: a.droppedSpans,
      tracesForceEnded: a.forcedTraces,
      spansForceEnded: a.forcedSpans,
      spansEndedAfterForceEnd: a.spansEndedAfterForce,
      openTraces: a.openTraces,
      tracesDiscarded: a.tracesDiscarded,
      spansDiscarded: a.spansDiscarded,
      internalErrors: internalErrorCount(),
      netSpans: netSpanCount(),
      retrieverEmbeddersDefaulted: defaultEmbedderCount(),
      spansWithoutTestCase: spansWithoutTestCaseCount(),
      tracesAbortedByPrerender: this.tracesAbortedByPrerender,
      modelCallsFolded: this.fold.folded,
    };
  }

  /** True once shut down to the end: nothing more is accepted or sent. */
  get isStopped(): boolean {
    return this.exporter.isStopped;
  }

  /** Why nothing answers at the base URL (nothing ever did, and a connection was refused), else undefined. */
  get nothingAnswers(): string | undefined {
    return this.exporter.nothingAnswers;
  }

  /** Traces held now (running, or not yet delivered). */
  get openTraces(): number {
    return this.assembler.openTraces;
  }

  // -- traces, for the front door, the bridge and the offline evaluations ----------------------

  /** A trace, read-only, while this runtime holds it. */
  heldTrace(traceId: string): TraceView | undefined {
    return this.assembler.get(traceId);
  }

  /** Every trace held now, read-only. */
  heldTraces(): Iterable<TraceView> {
    return this.assembler.all();
  }

  /** Applies `updateCurrentTrace`'s checked fields to a trace. */
  updateTrace(traceId: string, update: SafeTraceUpdate): void {
    this.assembler.updateTrace(traceId, update);
  }

  /** A model call Next.js aborted when its prerender completed (next-prerender.ts): its trace is dropped. */
  private dropPrerendered(span: ReadableSpan): void {
    const { traceId } = span.spanContext();
    const outcome = this.assembler.drop(traceId, false);
    if (outcome === "dropped" || outcome === "partly") {
      this.tracesAbortedByPrerender++;
      this.logger.debug(`trace ${traceUuid(traceId)} dropped: its model call was aborted by Next.js prerendering (the model never received it)`);
    }
  }

  /** Drops a trace for the app (`updateCurrentTrace({ drop: true })`): nothing more of it is sent. */
  dropTrace(traceId: string): DropOutcome {
    return this.assembler.drop(traceId);
  }

  /** Whether the app dropped this trace (remembered a while after its record was let go). */
  isDroppedTrace(traceId: string): boolean {
    return this.assembler.isDropped(traceId);
  }

  /**
   * Routes a trace to another project's key (a usable one: the caller checked): the trace, its
   * late updates and its offline evaluations go with it. `"late"`: it can no longer change.
   */
  routeTrace(traceId: string, apiKey: string): "routed" | "late" {
    const routed = this.assembler.route(traceId, apiKey, this.options.apiKey);
    if (routed === "routed") this.transport.remember(apiKey);
    return routed;
  }

  /** The API key a trace goes to, when it is not the configured one. */
  traceKeyOf(traceId: string): string | undefined {
    return this.assembler.keyOf(traceId);
  }

  /** Resolves once `done(trace)` holds for every one of `traces`, re-checked as each changes. */
  whenDelivered(traces: readonly TraceView[], done: (trace: TraceView) => boolean): Promise<void> {
    return Promise.all(traces.map((t) => waitFor(t, () => done(t)))).then(() => undefined);
  }

  /** Sends an offline evaluation once `ready` resolves (export/evaluations.ts). */
  evaluate(path: string, body: Record<string, unknown>, ready: () => Promise<string | undefined>, deferred: boolean, apiKey?: string): Promise<EvaluationOutcome> {
    return this.exporter.evaluate(path, body, ready, deferred, apiKey);
  }

  // -- spans of other instrumentations, from the bridge ----------------------------------------

  /** Whether a new trace of another instrumentation is recorded: sampled in, and room for it. */
  admitForeignRoot(): boolean {
    return this.samplesIn() && this.assembler.admitNewTrace();
  }

  /** A span of another instrumentation started in a trace of this runtime. */
  foreignStarted(span: SdkSpan, parentContext: Context): void {
    this.assembler.onStart(span, parentContext);
  }

  /** Whether a span of the trace this runtime holds has the span with this id as its parent. */
  spanHasChildren(traceId: string, spanId: string): boolean {
    return this.assembler.hasChildren(traceId, spanId);
  }

  /** Whether a span with this id is open in the trace this runtime holds. */
  isSpanOpen(traceId: string, spanId: string): boolean {
    return this.assembler.isOpen(traceId, spanId);
  }

  /** A span of another instrumentation ended, kept: it goes with its trace. */
  foreignEnded(span: ReadableSpan): void {
    this.assembler.onEnd(span);
  }

  /**
   * A span of another instrumentation read as an llm call ended (`read`: what its convention read): the
   * app's telemetry (matched against our integrations' traces of the same request), or zero-code's
   * own (noted for that match).
   */
  foreignModelCallEnded(span: ReadableSpan, read: SpanData, byZeroCode: boolean): void {
    if (byZeroCode) noteIntegrationModelCall(span, read);
    else this.fold.theirs(span, read);
  }

  /** A span of another instrumentation ended, left out (HTTP, DB ...): its kept children re-parent past it. */
  foreignEndedTransparent(span: ReadableSpan): void {
    this.assembler.onEndTransparent(span);
  }

  /** A bridged trace's local root ended without a type: kept (`markBase`) when anything under it is. */
  foreignLocalRootEnded(span: ReadableSpan, markBase: () => void): void {
    this.assembler.onEndLocalRoot(span, markBase);
  }

  // -- delivery --------------------------------------------------------------------------------

  /**
   * Sends everything finished so far and resolves when it was delivered or given up, or when
   * `timeoutMillis` passed. Never rejects.
   */
  flush(timeoutMillis?: number): Promise<FlushResult> {
    this.fold.sendHeld();
    return this.exporter.flush(timeoutMillis);
  }

  /**
   * The one drain (runtime/drain.ts) for every way out: `deliver()`, `shutdown()`, the exit hooks
   * and signals. A `shutdown` drain is this runtime's shutdown (once). Never rejects.
   */
  drain(request: DrainRequest): Promise<FlushResult> {
    if (request.reason === "shutdown") return this.shutdown(request.budget);
    return this.drainNow(request);
  }

  /**
   * Stops recording new traces, waits (within the budget) for the traces running now to end,
   * sends those still running with their open spans marked, delivers everything, then closes
   * the transport. The result counts every trace that was not delivered. Idempotent.
   */
  shutdown(timeoutMillis = this.options.shutdownTimeoutMillis): Promise<FlushResult> {
    this.shutdownPromise ??= this.drainNow({ reason: "shutdown", budget: timeoutMillis });
    return this.shutdownPromise;
  }

  private drainNow(request: DrainRequest): Promise<FlushResult> {
    const exporter = this.exporter;
    const deliver = (left: number): Promise<FlushResult> => {
      // Traces held for a framework's span of the same request go now, as they are; a shutdown holds none from now on.
      if (request.reason === "shutdown") this.fold.stop();
      else this.fold.sendHeld();
      if (request.reason === "shutdown") return exporter.shutdown(left);
      if (request.reason === "exit") {
        // Once per new batch of work: a flush that timed out must not be retried forever.
        if (!exporter.hasPendingWork || this.exitFlushedAt === exporter.handedOff) return Promise.resolve(nothingToDo());
        this.exitFlushedAt = exporter.handedOff;
      }
      return exporter.flush(left);
    };
    // A drain that fails is counted and logged, never silent: a shutdown still stops the exporter
    // (and with it the transport and the spool's lock), and the result is not ok.
    const failed = (error: unknown): Promise<FlushResult> => {
      reportInternalError(`the ${request.reason} drain`, error, this.logger);
      const stop = request.reason === "shutdown" ? exporter.shutdown(request.budget).catch(() => undefined) : Promise.resolve(undefined);
      return stop.then(() => ({ ok: false, delivered: 0, notDelivered: [], pending: [], timedOut: false }));
    };
    try {
      return drain({ clock: this.options.clock, assembler: this.assembler, deliver }, request).catch(failed);
    } catch (error) {
      return failed(error);
    }
  }
}

function nothingToDo(): FlushResult {
  return { ok: true, delivered: 0, notDelivered: [], pending: [], timedOut: false };
}
