import { type Context, trace as otelTrace } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { activeRuntime, type Runtime, runtimeFor } from "../runtime.js";
import type { LlmTestCase } from "../tracing/fields.js";
import { type ForeignEvaluation, setForeignEvaluation, setOwner, setParentOverride } from "../tracing/span-data.js";
import { isLlmRelevant } from "./foreign-span.js";

/** Options of {@link EvaltraceSpanProcessor}. */
export interface EvaltraceSpanProcessorOptions {
  /**
   * Decides which spans belong in the service's traces.
   * @default spans with OpenTelemetry GenAI (`gen_ai.*`) or Vercel AI SDK (`ai.*`) attributes
   */
  keep?: (span: { name: string; attributes: ReadableSpan["attributes"] }) => boolean;
  /** Single-turn metric collection that evaluates each llm span online. */
  metricCollection?: string;
  /** Builds the online-eval test case of an llm span. @default last user message and the reply, when metricCollection is set */
  llmTestCase?: boolean | ((call: { input: string; output: string }) => LlmTestCase | undefined);
}

const KEPT = Symbol.for("evaltrace.kept");

/**
 * A span processor to add to your own OpenTelemetry setup (a `NodeTracerProvider`, `NodeSDK`,
 * beside Sentry, Datadog, Honeycomb ...): the LLM-relevant spans of any instrumentation go to
 * the service as evaltrace traces (GenAI semantic conventions become llm and tool spans; the
 * Vercel AI SDK's `experimental_telemetry` spans too). Spans that are not LLM-relevant (HTTP,
 * DB) are left out, and their LLM-relevant descendants are re-parented to the nearest kept
 * ancestor, so the hierarchy stays valid. Uses the options of `configure()`.
 *
 * @example
 * const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(otlp), new EvaltraceSpanProcessor()] });
 */
export class EvaltraceSpanProcessor implements SpanProcessor {
  /** span id -> id of its nearest kept ancestor-or-self (null: none), while the span runs. */
  private readonly nearestKept = new Map<string, string | null>();
  private readonly keep: NonNullable<EvaltraceSpanProcessorOptions["keep"]>;
  private readonly evaluation: ForeignEvaluation | undefined;

  constructor(options: EvaltraceSpanProcessorOptions = {}) {
    this.keep = options.keep ?? ((span) => isLlmRelevant(span.name, span.attributes));
    const { metricCollection, llmTestCase } = options;
    this.evaluation = metricCollection !== undefined || llmTestCase !== undefined ? { metricCollection, llmTestCase } : undefined;
  }

  onStart(span: Span, parentContext: Context): void {
    try {
      const { spanId } = span.spanContext();
      const parentId = span.parentSpanContext?.spanId;
      const ancestor = parentId ? (this.nearestKept.get(parentId) ?? null) : null;
      // The runtime of the parent (ours or one this processor saw), so a trace is never split.
      const parent = parentId ? otelTrace.getSpan(parentContext) : undefined;
      const rt = runtimeFor(parent);
      if (rt) setOwner(span, rt);
      const kept = rt !== undefined && this.keep(span) && (ancestor !== null || rt.assembler.admitNewTrace());
      this.nearestKept.set(spanId, kept ? spanId : ancestor);
      if (!kept || !rt) return;
      setParentOverride(span, ancestor);
      if (this.evaluation) setForeignEvaluation(span, this.evaluation);
      (span as unknown as { [KEPT]: Runtime })[KEPT] = rt;
      rt.assembler.onStart(span, parentContext);
    } catch {
      // Never break the app's tracing pipeline.
    }
  }

  onEnd(span: ReadableSpan): void {
    try {
      this.nearestKept.delete(span.spanContext().spanId);
      // The assembler that saw it start, whatever configure() did since.
      (span as unknown as { [KEPT]?: Runtime })[KEPT]?.assembler.onEnd(span);
    } catch {
      // Never break the app's tracing pipeline.
    }
  }

  async forceFlush(): Promise<void> {
    await activeRuntime()?.exporter.flush();
  }

  async shutdown(): Promise<void> {
    this.nearestKept.clear();
  }
}

