import { type Attributes, type Context, context, type Link, type SpanKind, trace, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, type Sampler, SamplingDecision, type SamplingResult } from "@opentelemetry/sdk-trace-base";
import { type EvaltraceOptions, type ResolvedOptions, resolveOptions } from "./config.js";
import { TraceAssembler } from "./export/trace-assembler.js";
import { type ExporterStats, type FlushResult, TraceExporter } from "./export/trace-exporter.js";
import { Transport } from "./http/transport.js";
import { type Logger, safeLogger } from "./logger.js";

/** Counters of the whole SDK: the exporter's plus what was dropped before export. */
export interface SdkStats extends ExporterStats {
  /** Traces not recorded because `maxOpenTraces` traces were open. */
  tracesNotRecorded: number;
  /** Spans dropped because their trace reached `maxSpansPerTrace`. */
  spansDropped: number;
  /** Traces whose spans are still open or unsent, held in memory now. */
  openTraces: number;
}

/** The SDK's live parts, made by `configure()` or lazily on first use. */
export class Runtime {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly tracer: Tracer;
  readonly assembler: TraceAssembler;
  readonly exporter: TraceExporter;
  readonly transport: Transport;
  private readonly provider: BasicTracerProvider;
  private shutdownPromise: Promise<FlushResult> | undefined;

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.logger = safeLogger(options.logger, () => (options.apiKey ? [options.apiKey] : []));
    let exporter!: TraceExporter;
    this.transport = new Transport({
      ...options,
      logger: this.logger,
      onRetry: () => exporter.countRetry(),
    });
    exporter = new TraceExporter(options, this.transport, options.clock, this.logger);
    this.exporter = exporter;
    this.assembler = new TraceAssembler(exporter, options, this.logger);
    exporter.release = (rec) => this.assembler.release(rec);
    this.provider = new BasicTracerProvider({
      sampler: new EvaltraceSampler(this),
      spanProcessors: [this.assembler],
    });
    this.tracer = this.provider.getTracer("evaltrace");
    if (options.enabled && options.apiKey) this.transport.warm();
  }

  get isShutdown(): boolean {
    return this.shutdownPromise !== undefined;
  }

  stats(): SdkStats {
    return {
      ...this.exporter.stats(),
      tracesNotRecorded: this.assembler.droppedTraces,
      spansDropped: this.assembler.droppedSpans,
      openTraces: this.assembler.openTraces,
    };
  }

  shutdown(timeoutMillis = this.options.shutdownTimeoutMillis): Promise<FlushResult> {
    this.shutdownPromise ??= this.exporter.shutdown(timeoutMillis);
    return this.shutdownPromise;
  }
}

/**
 * Keeps or drops whole traces: a root is kept with probability `sampleRate` (and only while
 * the assembler can hold another trace); children follow their parent.
 */
class EvaltraceSampler implements Sampler {
  constructor(private readonly runtime: Runtime) {}

  shouldSample(ctx: Context, _traceId: string, _name: string, _kind: SpanKind, _attrs: Attributes, _links: Link[]): SamplingResult {
    const parent = trace.getSpanContext(ctx);
    if (parent) {
      return { decision: parent.traceFlags & 1 ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
    }
    const rt = this.runtime;
    const keep = !rt.isShutdown && (rt.options.sampleRate >= 1 || Math.random() < rt.options.sampleRate) && rt.assembler.admitNewTrace();
    return { decision: keep ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `EvaltraceSampler{${this.runtime.options.sampleRate}}`;
  }
}

let current: Runtime | undefined;
let contextReady = false;
let warnedNoKey = false;
let hooksInstalled = false;

/**
 * Registers an AsyncLocalStorage context manager unless the app already has one: the OTel API
 * refuses a second registration, so an app's own manager is never replaced.
 */
function ensureContextManager(): void {
  if (contextReady) return;
  contextReady = true;
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager.enable())) return;
  manager.disable();
}

/** Sets the SDK's options. Calling it again replaces the options; work already queued is still delivered. */
export function configure(options: EvaltraceOptions = {}): void {
  const resolved = resolveOptions(options);
  const previous = current;
  current = new Runtime(resolved);
  ensureContextManager();
  installExitHooks();
  if (previous && !previous.isShutdown) {
    void previous.exporter.flush();
  }
  warnIfNoKey(current);
}

function warnIfNoKey(rt: Runtime): void {
  if (!rt.options.apiKey && rt.options.enabled && !warnedNoKey) {
    warnedNoKey = true;
    rt.logger.warn("no API key (set SERVICE_API_KEY or configure({ apiKey })): tracing is off, the app runs untouched");
  }
}

/**
 * The runtime to record with, or undefined when tracing is off (disabled, no key, shut down).
 * Made from the environment on first use when `configure()` was never called.
 */
export function activeRuntime(): Runtime | undefined {
  if (!current) {
    try {
      current = new Runtime(resolveOptions({}));
      ensureContextManager();
      installExitHooks();
      warnIfNoKey(current);
    } catch {
      return undefined;
    }
  }
  const rt = current;
  if (!rt.options.enabled || !rt.options.apiKey || rt.isShutdown) return undefined;
  return rt;
}

/** The current runtime whatever its state, without creating one. */
export function currentRuntime(): Runtime | undefined {
  return current;
}

type Proc = {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  listenerCount(event: string): number;
  kill(pid: number, signal: string): unknown;
  pid: number;
};

/**
 * Delivers on the way out: on `beforeExit` (the loop ran dry: the app ended without `flush()`)
 * and on SIGTERM/SIGINT. A signal handler of ours alone would stop Node's default exit, so when
 * the app has no handler of its own, the signal is re-raised after the flush.
 */
function installExitHooks(): void {
  if (hooksInstalled) return;
  const proc = (globalThis as { process?: Proc }).process;
  if (!proc || typeof proc.on !== "function") return;
  const rt = current;
  if (!rt?.options.registerExitHooks) return;
  hooksInstalled = true;
  proc.on("beforeExit", () => {
    const live = current;
    if (live && !live.isShutdown && live.exporter.hasPendingWork) {
      void live.exporter.flush(live.options.shutdownTimeoutMillis);
    }
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const onSignal = () => {
      const live = current;
      const done = live ? live.shutdown() : Promise.resolve();
      void done.finally(() => {
        if (proc.listenerCount(signal) === 1) {
          proc.removeListener(signal, onSignal);
          proc.kill(proc.pid, signal);
        }
      });
    };
    proc.on(signal, onSignal);
  }
}
