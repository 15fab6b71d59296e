import { internalErrorCount } from "../util/internal-errors.js";
import type { Attributes, Context, HrTime, Span } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { ResolvedOptions } from "../config.js";
import { TraceAssembler } from "../assemble/trace-assembler.js";
import { TraceBodies } from "../encode/trace-body.js";
import { Evaluations } from "../export/evaluations.js";
import { LateUpdates } from "../export/late-updates.js";
import { Requests } from "../export/requests.js";
import { Settlement } from "../export/settlement.js";
import { TraceExporter } from "../export/trace-exporter.js";
import { replaySender } from "../export/spool/replay-send.js";
import { TraceSpool } from "../export/spool/trace-spool.js";
import { type ExporterStats, type FlushResult, noWorkYet } from "../export/types.js";
import { KeyedTransport } from "../http/keyed-transport.js";
import { type Logger, safeLogger } from "../logger.js";
import type { ObservedSpan } from "../spans/observed-span.js";
import { type ParentSpan, type SpanSource, startObservedSpan } from "../spans/observed-tracer.js";
import { TappedSink } from "./tapped-sink.js";
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
}

/** The SDK's live parts, made by `configure()` or lazily on first use. */
export class Runtime {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly assembler: TraceAssembler;
  readonly exporter: TraceExporter;
  readonly transport: KeyedTransport;
  /** How observed spans reach the assembler, and how a new trace is admitted. */
  private readonly spans: SpanSource;
  private shutdownPromise: Promise<FlushResult> | undefined;

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
    const sink = new TappedSink({ exporter: this.exporter, bodies, logger, release: (rec) => this.assembler.release(rec) });
    this.assembler = new TraceAssembler(sink, options, logger);
    const assembler = this.assembler;
    this.spans = {
      onStart: (span: ObservedSpan, parentContext: Context, parent: ParentSpan) => assembler.onStart(span, parentContext, parent),
      onEnd: (span: ReadableSpan) => assembler.onEnd(span),
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
    };
  }

  /**
   * Stops recording new traces, waits (within the budget) for the traces running now to end,
   * sends those still running with their open spans marked, delivers everything, then closes
   * the transport. The result counts every trace that was not delivered. Idempotent.
   */
  shutdown(timeoutMillis = this.options.shutdownTimeoutMillis): Promise<FlushResult> {
    this.shutdownPromise ??= this.drainAndClose(timeoutMillis);
    return this.shutdownPromise;
  }

  private async drainAndClose(timeoutMillis: number): Promise<FlushResult> {
    const clock = this.options.clock;
    const started = clock.now();
    // Half the budget for running work to end, the rest (at least) for delivery.
    await this.assembler.whenSpansEnded([...this.assembler.all()], timeoutMillis / 2);
    this.assembler.forceEndAll("shutdown");
    const left = Math.max(0, timeoutMillis - (clock.now() - started));
    return this.exporter.shutdown(left);
  }
}
