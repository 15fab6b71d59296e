import { type Context, trace as otelTrace } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Runtime } from "../runtime/runtime.js";
import { currentRuntime, runtimeFor } from "../runtime/configure.js";
import { interpret } from "../semconv/interpret.js";
import { takeLogs } from "./log-records.js";
import type { Mapped } from "../semconv/types.js";
import { allRuntimes, registry } from "../runtime/registry.js";
import { rememberScopedDefaults } from "../tracing/scoped-defaults.js";
import type { LlmTestCase, SpanType } from "../protocol/types.js";
import { hasJoinableRemoteParent } from "../spans/remote-parent.js";
import { parentSpanContextOf, rememberSdk1Parent } from "../spans/span-shape.js";
import { declareForeignSlots, getSpanData, markIntegrationSpan, ownerOf, parentSpanIdOf, setForeignSource, setOwner, setParentOverride, TRACKED_SLOT } from "../spans/span-data.js";
import { reportInternalError } from "../util/internal-errors.js";
import { ForeignReader } from "./foreign-span.js";
import { processWide } from "../process-wide.js";
import { isSupersededTool, noteTwinTool } from "./twin-tools.js";
import { appBridgeMade } from "../traces/model-call-fold.js";
import { claimedByHook, tellHooksTracked } from "./start-hooks.js";

/** Set while zero-code makes its own processor (zeroCodeSpanProcessor). */
let makingForZeroCode = false;
/** Whether zero-code made its own processor in this process (any copy of the package). */
const zeroCodeBridge = processWide("bridge.zeroCodeProcessor", () => ({ made: false }));

/** Options of {@link EvaltraceSpanProcessor}. */
export interface EvaltraceSpanProcessorOptions {
  /**
   * Decides, when a span has ended (its final attributes set), whether it belongs in the
   * service's traces. Spans left out are transparent: their kept descendants re-parent past them.
   * @default spans a semantic convention claims: OpenTelemetry GenAI (current and legacy),
   * OpenInference, OpenLLMetry, the Vercel AI SDK
   */
  keep?: (span: ReadableSpan) => boolean;
  /** Single-turn metric collection that evaluates each llm span online. */
  metricCollection?: string;
  /** Builds the online-eval test case of an llm span. @default last user message and the reply, when metricCollection is set */
  llmTestCase?: boolean | ((call: { input: string; output: string }) => LlmTestCase | undefined);
}

/**
 * A span processor to add to your own OpenTelemetry setup (a `NodeTracerProvider`, `NodeSDK`,
 * beside Sentry, Datadog, Honeycomb ...): the LLM spans of any instrumentation land in the
 * service's traces, in the same trace as the `observe()` spans around them. What each span is
 * (llm, tool, retriever, agent, base) and its fields are decided when it ends, from its final
 * attributes, events and correlated log records, by the semantic-convention tables in
 * `src/semconv/`, read once then (bridge/foreign-span.ts). Spans no convention claims (HTTP, DB)
 * are left out and their kept descendants re-parent to the nearest kept ancestor; the trace's
 * local root is kept (as a base span named after it) whenever anything under it is, so a trace
 * always has one root. Uses the options of `configure()`.
 *
 * @example
 * const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(otlp), new EvaltraceSpanProcessor()] });
 */
export class EvaltraceSpanProcessor implements SpanProcessor {
  private readonly keep: ((span: ReadableSpan) => boolean) | undefined;
  /** Reads the spans it tracks, with its online-evaluation settings. */
  private readonly reader: ForeignReader;
  /** Local roots not recorded (sampled out, or over maxOpenTraces), and their descendants. */
  private readonly refused = new WeakSet<object>();
  /** Zero-code's own processor (its AI SDK calls): what it records is an integration's, not the app's telemetry. */
  private readonly byZeroCode = makingForZeroCode;

  constructor(options: EvaltraceSpanProcessorOptions = {}) {
    // From now on observed spans share the OTel context (unless otelContext says "separate"):
    // there is a bridge to see what other instrumentations record inside them.
    registry().bridged = true;
    if (!this.byZeroCode) appBridgeMade();
    this.keep = options.keep;
    const { metricCollection, llmTestCase } = options;
    this.reader = new ForeignReader(metricCollection !== undefined || llmTestCase !== undefined ? { metricCollection, llmTestCase } : undefined);
  }

  onStart(span: Span, parentContext: Context): void {
    try {
      // A span a start hook claims (the doctor's probe) is answered, not recorded.
      if (claimedByHook(span, parentContext)) return;
      // Our own spans (observe(), integrations) reach the service through our own provider.
      if (getSpanData(span)) return;
      // An SDK 1.x span names its parent by id only: its whole context is kept (span-shape.ts).
      rememberSdk1Parent(span, parentContext);
      const parent = parentSpanContextOf(span) ? otelTrace.getSpan(parentContext) : undefined;
      // Under a trace we refused (sampled out, or maxOpenTraces): refused with it.
      if (parent && this.refused.has(parent)) {
        this.refused.add(span);
        return;
      }
      const rt = runtimeFor(parent);
      if (!rt) return;
      declareForeignSlots(span);
      // A span under a remote evaltrace caller's span joins the caller's trace (remote-parent.ts).
      if (!this.isKnownParent(rt, span, parent) && !hasJoinableRemoteParent(span)) {
        // The local root of a trace for us (its parent, if any, is in another process or
        // untracked): sampled and admitted like any new trace, and a root on the wire.
        if (!rt.admitForeignRoot()) {
          this.refused.add(span);
          return;
        }
        setParentOverride(span, null);
      }
      setOwner(span, rt);
      if (this.byZeroCode) markIntegrationSpan(span);
      // The app's framework recording a tool call zero-code's AI SDK span records too (VoltAgent).
      else if (zeroCodeBridge.made) noteTwinTool(span, parentContext, this.reader);
      (span as unknown as { [TRACKED_SLOT]?: Runtime })[TRACKED_SLOT] = rt;
      setForeignSource(span, this.reader);
      if (parent && (parent as { [TRACKED_SLOT]?: Runtime })[TRACKED_SLOT]) this.reader.childStarted(parent, span);
      rt.foreignStarted(span, parentContext);
      rememberScopedDefaults(rt, span, parentContext);
      tellHooksTracked(span, parentContext);
    } catch (error) {
      // Never break the app's tracing pipeline; counted and logged.
      reportInternalError("EvaltraceSpanProcessor.onStart", error, currentRuntime()?.logger);
    }
  }

  /**
   * Whether a span's parent belongs to a trace evaltrace records: a span we track (our own or
   * one this processor saw), or one still open in the trace's record (instrumentations may pass
   * the parent as a bare span context).
   */
  private isKnownParent(rt: Runtime, span: Span, parent: object | undefined): boolean {
    const parentId = parentSpanContextOf(span)?.spanId;
    if (!parentId) return false;
    if (parent && ownerOf(parent) === rt) return true;
    return rt.isSpanOpen(span.spanContext().traceId, parentId);
  }

  onEnd(span: ReadableSpan): void {
    try {
      const rt = (span as unknown as { [TRACKED_SLOT]?: Runtime })[TRACKED_SLOT];
      if (!rt) return;
      // Read once, here, from its final attributes, events and the log records it took with it.
      const logs = takeLogs(span.spanContext().spanId);
      if (isSupersededTool(span) && !rt.spanHasChildren(span.spanContext().traceId, span.spanContext().spanId)) {
        // A tool call the app's framework recorded too: its span is kept, this one left out
        // (unless what the tool did hangs from it: then both stay, rather than move that elsewhere).
        rt.foreignEndedTransparent(span);
        return;
      }
      const mapped = interpret(this.reader.finished(span, logs));
      const type = this.decide(span, mapped);
      if (type === undefined && parentSpanIdOf(span) === undefined) {
        // The local root: kept (named after itself) when anything under it is, else let go;
        // decided once nothing under it runs any more.
        const claimed = mapped !== undefined;
        rt.foreignLocalRootEnded(span, () => this.keepRoot(span, claimed));
        return;
      }
      if (type === undefined) {
        rt.foreignEndedTransparent(span);
        return;
      }
      const read = this.reader.ended(span, type, mapped, logs);
      // A model request the app's telemetry recorded, or zero-code's: one llm span each (traces/model-call-fold.ts).
      if (type === "llm" && mapped?.type === "llm") rt.foreignModelCallEnded(span, read, this.byZeroCode);
      rt.foreignEnded(span);
    } catch (error) {
      // Never break the app's tracing pipeline; counted and logged.
      reportInternalError("EvaltraceSpanProcessor.onEnd", error, currentRuntime()?.logger);
    }
  }

  /** The span's type in our traces, or undefined to leave it out. */
  private decide(span: ReadableSpan, mapped: Mapped | undefined): SpanType | undefined {
    if (!this.keep) return mapped?.type;
    let kept = false;
    try {
      kept = this.keep(span);
    } catch {
      kept = false;
    }
    return kept ? (mapped?.type ?? "base") : undefined;
  }

  /** A local root kept as its trace's root: read as a base span (called by the assembler, which it must not break). */
  private keepRoot(span: ReadableSpan, claimed: boolean): void {
    try {
      this.reader.endedRoot(span, claimed);
    } catch {
      // Left to its reader: sent as it stands.
    }
  }

  async forceFlush(): Promise<void> {
    // The app's provider flushing (a serverless handler's end, say) delivers ours too.
    await Promise.all(allRuntimes().map((rt) => rt.flush()));
  }

  async shutdown(): Promise<void> {}
}

/** The processor of zero-code's own provider for the AI SDK's telemetry: its spans are an integration's, not the app's telemetry. */
export function zeroCodeSpanProcessor(): EvaltraceSpanProcessor {
  makingForZeroCode = true;
  zeroCodeBridge.made = true;
  try {
    return new EvaltraceSpanProcessor();
  } finally {
    makingForZeroCode = false;
  }
}
