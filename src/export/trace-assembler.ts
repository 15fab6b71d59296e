import type { Context } from "@opentelemetry/api";
import { trace as otelTrace } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { isReportableCount, type Logger } from "../logger.js";
import type { TraceUpdate } from "../tracing/fields.js";
import type { JsonValue } from "../tracing/serialize.js";
import { getSpanData, parentSpanIdOf } from "../tracing/span-data.js";
import type { TraceExporter } from "./trace-exporter.js";
import { newTraceRecord, type TraceRecord } from "./trace-record.js";

/** The subset of `TraceUpdate`, already made JSON-safe, that the assembler stores. */
export type SafeTraceUpdate = { [K in keyof TraceUpdate]?: JsonValue };

const overwritableLate = new Set(["output", "environment", "metadata", "tags"]);

/**
 * The span processor of our provider. It buffers the finished spans of each trace and, when the
 * trace's root ends, hands the whole trace to the exporter. Spans and trace updates that arrive
 * after that become late updates (`PUT`). Holds at most `maxOpenTraces` traces.
 */
export class TraceAssembler implements SpanProcessor {
  private readonly records = new Map<string, TraceRecord>();
  /** Spans beyond maxSpansPerTrace, dropped. */
  droppedSpans = 0;
  /** Traces not recorded because maxOpenTraces traces were open. */
  droppedTraces = 0;
  private warnedIgnoredFields = false;

  constructor(
    private readonly exporter: TraceExporter,
    private readonly limits: { maxOpenTraces: number; maxSpansPerTrace: number },
    private readonly logger: Logger,
  ) {}

  /** Traces whose root is still running (ended ones are bounded by the export queue instead). */
  private running = 0;
  private idleWaiters: (() => void)[] = [];

  /** Resolves once no trace is running (every root started so far has ended). */
  whenIdle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Whether a new trace may start; counts the refusal. Called by the sampler. */
  admitNewTrace(): boolean {
    if (this.running < this.limits.maxOpenTraces) return true;
    this.droppedTraces++;
    if (isReportableCount(this.droppedTraces)) {
      this.logger.warn(
        `${this.droppedTraces} trace(s) not recorded: ${this.limits.maxOpenTraces} traces are open at once (maxOpenTraces)`,
      );
    }
    return false;
  }

  /** The record of a trace, while the SDK holds one. */
  get(traceId: string): TraceRecord | undefined {
    return this.records.get(traceId);
  }

  /** Every record held now. */
  all(): IterableIterator<TraceRecord> {
    return this.records.values();
  }

  get openTraces(): number {
    return this.records.size;
  }

  onStart(span: Span, parentContext: Context): void {
    const { traceId } = span.spanContext();
    let rec = this.records.get(traceId);
    if (!rec) {
      rec = newTraceRecord(traceId);
      const parent = parentSpanIdOf(span) ? otelTrace.getSpan(parentContext) : undefined;
      if (parent && (parent as unknown as ReadableSpan).ended) {
        // A span started from the context of a trace that has already been handed off (work
        // left running after its root returned): it can only be a late update.
        rec.phase = "sent";
      } else {
        this.running++;
      }
      this.records.set(traceId, rec);
    }
    rec.open++;
  }

  onEnd(span: ReadableSpan): void {
    const rec = this.records.get(span.spanContext().traceId);
    if (!rec) return;
    rec.open--;
    const data = getSpanData(span);
    if (data) data.ended = true;
    if (rec.spanCount >= this.limits.maxSpansPerTrace) {
      this.droppedSpans++;
      if (this.droppedSpans === 1) {
        this.logger.warn(`span(s) dropped: trace ${rec.uuid} reached maxSpansPerTrace (${this.limits.maxSpansPerTrace})`);
      }
    } else if (rec.phase === "open" || rec.phase === "queued") {
      rec.spanCount++;
      rec.spans.push(span);
      if (!parentSpanIdOf(span) && rec.phase === "open") {
        if (--this.running === 0 && this.idleWaiters.length > 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const wake of waiters) wake();
        }
        rec.root = span;
        rec.phase = "queued";
        this.exporter.enqueue(rec);
      }
    } else if (rec.phase !== "failed") {
      rec.spanCount++;
      rec.late ??= { spans: [] };
      rec.late.spans.push(span);
      this.exporter.scheduleUpdate(rec);
    }
    this.release(rec);
  }

  /** Applies `updateCurrentTrace` to the trace with this id. */
  updateTrace(traceId: string, update: SafeTraceUpdate): void {
    const rec = this.records.get(traceId);
    if (!rec) return;
    if (rec.phase === "open" || rec.phase === "queued") {
      applyTraceUpdate(rec, update);
      return;
    }
    if (rec.phase === "failed") return;
    const ignored = Object.keys(update).filter((k) => !overwritableLate.has(k));
    if (ignored.length > 0 && !this.warnedIgnoredFields) {
      this.warnedIgnoredFields = true;
      this.logger.warn(
        `updateCurrentTrace after trace ${rec.uuid} was sent: only output, environment, metadata and tags can still change (spec 4.6); ignored ${ignored.join(", ")}`,
      );
    }
    const late = (rec.late ??= { spans: [] });
    if (update.output !== undefined) late.output = update.output;
    if (typeof update.environment === "string") late.environment = update.environment;
    if (isRecord(update.metadata)) late.metadata = { ...late.metadata, ...update.metadata };
    if (Array.isArray(update.tags)) late.tags = [...(late.tags ?? []), ...update.tags.filter((t) => typeof t === "string")];
    this.exporter.scheduleUpdate(rec);
  }

  /** Forgets a record once nothing more can happen to it. Called after every change. */
  release(rec: TraceRecord): void {
    if ((rec.phase === "sent" || rec.phase === "failed") && rec.open === 0 && !rec.late && !rec.putInFlight) {
      this.records.delete(rec.traceId);
    }
  }

  async forceFlush(): Promise<void> {
    await this.exporter.flush();
  }

  async shutdown(): Promise<void> {
    await this.exporter.shutdown();
  }
}

function isRecord(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function applyTraceUpdate(rec: TraceRecord, update: SafeTraceUpdate): void {
  const f = rec.fields;
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined) continue;
    switch (key) {
      case "tags":
        if (Array.isArray(value)) f.tags.push(...value.filter((t): t is string => typeof t === "string"));
        break;
      case "metadata":
        if (isRecord(value)) Object.assign(f.metadata, value);
        break;
      case "name":
      case "threadId":
      case "userId":
      case "environment":
      case "metricCollection":
        if (typeof value === "string") f[key] = value;
        break;
      case "input":
      case "output":
      case "llmTestCase":
        f[key] = value;
        break;
      default:
        f.extra[key] = value;
    }
  }
}

