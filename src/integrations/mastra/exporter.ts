import { type Context, context } from "@opentelemetry/api";
import { flush } from "../../lifecycle/delivery.js";
import type { SpanType } from "../../protocol/types.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { updateCurrentTrace } from "../../tracing/update.js";
import { finishCall, type ModelWrapOptions, quietly, setMetadata } from "../kit/model-call.js";
import { readGeneration, readSpan, spanTypeOf, traceFieldsOf } from "./mapping.js";
import type { MastraExportedSpan, MastraTracingEvent } from "./types.js";

/** Options of {@link EvaltraceExporter}. */
export interface EvaltraceExporterOptions extends ModelWrapOptions {
  /**
   * Most Mastra spans open at once (started, not yet ended); past it new spans are left out
   * (their children join the trace's root) and counted in {@link EvaltraceExporter.droppedSpans}.
   * @default 10000
   */
  maxOpenSpans?: number;
}

/** How many parents a left-out span may be looked through before giving up (a cycle, a broken tree). */
const MAX_HOPS = 64;

/**
 * An exporter for Mastra's observability (`@mastra/observability`): every Mastra trace becomes
 * one of ours, sent by evaltrace's batching exporter. Agent runs are agent spans (their tools as
 * `availableTools`), model generations llm spans (messages, reply, tool calls as `toolsCalled`,
 * model, summed token usage, time to first token and tokens per second), tool calls tool spans
 * (input, output, description), and workflow runs, steps and everything else base spans; a
 * generation's steps and chunks are folded into its llm span. Spans nest as Mastra ran them, and
 * a Mastra run inside an `observe()` span joins its trace. Errors become ERRORED spans.
 *
 * Events are handled as Mastra emits them (synchronously), so span times are the run's own.
 * Nothing it does throws into Mastra or the app.
 *
 * @example
 * import { Mastra } from "@mastra/core";
 * import { Observability } from "@mastra/observability";
 * import { EvaltraceExporter } from "evaltrace/mastra";
 * const mastra = new Mastra({
 *   agents: { support },
 *   observability: new Observability({ configs: { evaltrace: { serviceName: "support", exporters: [new EvaltraceExporter()] } } }),
 * });
 */
export class EvaltraceExporter {
  /** The exporter's name, as Mastra lists it. */
  readonly name = "evaltrace";
  /** Spans left out because {@link EvaltraceExporterOptions.maxOpenSpans} were open. */
  droppedSpans = 0;
  /** Our open spans, by Mastra span id. */
  private readonly spans = new Map<string, ManualSpan>();
  /** Left-out spans (a generation's steps, chunks): their id -> their parent's id. */
  private readonly transparent = new Map<string, string | undefined>();
  /** The root we opened for each Mastra trace: where a span whose parent is unknown goes. */
  private readonly roots = new Map<string, { id: string; context: Context }>();
  private readonly maxOpen: number;

  constructor(private readonly options: EvaltraceExporterOptions = {}) {
    const max = options.maxOpenSpans;
    this.maxOpen = typeof max === "number" && max > 0 ? max : 10_000;
  }

  /** Mastra's event handler (preferred over {@link exportTracingEvent} by Mastra's event bus). Never throws. */
  onTracingEvent(event: MastraTracingEvent): void {
    quietly(() => {
      const span = event?.exportedSpan;
      if (!span || typeof span.id !== "string") return;
      if (event.type === "span_started") this.started(span);
      else if (event.type === "span_ended") this.ended(span);
      // span_updated: the end event carries the span as it finally is.
    });
  }

  /** Mastra's exporter interface: the same as {@link onTracingEvent}. */
  async exportTracingEvent(event: MastraTracingEvent): Promise<void> {
    this.onTracingEvent(event);
  }

  /** Sends what evaltrace has finished (Mastra calls it from `observability.flush()`). Never rejects. */
  async flush(): Promise<void> {
    await flush().catch(() => undefined);
  }

  /** Ends the spans still open (as they are) and sends what is finished. Never rejects. */
  async shutdown(): Promise<void> {
    for (const span of this.spans.values()) span.end();
    this.spans.clear();
    this.transparent.clear();
    this.roots.clear();
    await this.flush();
  }

  /** The context of the nearest span we opened above `parentId`, or the trace's root, or none. */
  private parentContext(span: MastraExportedSpan): Context | undefined {
    let key = span.parentSpanId;
    for (let hops = 0; key !== undefined && hops < MAX_HOPS; hops++) {
      const opened = this.spans.get(key);
      if (opened) return opened.context;
      if (!this.transparent.has(key)) break;
      key = this.transparent.get(key);
    }
    // A root, or a parent we never saw (filtered by Mastra, dropped): the trace's root, else the
    // app's current context (a Mastra run inside an observe() span joins its trace).
    return span.parentSpanId === undefined ? undefined : this.roots.get(span.traceId)?.context;
  }

  /** Opens our span for a Mastra span (`ending`: an event span, ended at once, so not held open). */
  private started(s: MastraExportedSpan, ending = false): SpanType | null | undefined {
    if (this.spans.has(s.id) || this.transparent.has(s.id)) return undefined;
    const type = spanTypeOf(s.type);
    if (!ending && this.spans.size + this.transparent.size >= this.maxOpen) {
      this.droppedSpans++;
      return undefined;
    }
    if (type === null) {
      this.transparent.set(s.id, s.parentSpanId);
      return type;
    }
    const attributes = (s.attributes ?? {}) as Record<string, unknown>;
    const fields = type === "llm" ? { model: attributes.model, provider: attributes.provider } : {};
    const opened = openSpan(typeof s.name === "string" && s.name ? s.name : s.type, type, fields, undefined, this.parentContext(s) ?? context.active());
    if (!opened) return undefined;
    opened.setIntegration("Mastra");
    if (s.input !== undefined) opened.setInput(s.input);
    this.spans.set(s.id, opened);
    if (!this.roots.has(s.traceId)) this.roots.set(s.traceId, { id: s.id, context: opened.context });
    return type;
  }

  private ended(s: MastraExportedSpan): void {
    // An event span (a point in time) is only reported as ended.
    if (!this.spans.has(s.id) && !this.transparent.has(s.id) && this.started(s, true) === undefined) return;
    this.transparent.delete(s.id);
    const opened = this.spans.get(s.id);
    if (!opened) return;
    this.spans.delete(s.id);
    if (this.roots.get(s.traceId)?.id === s.id) this.roots.delete(s.traceId);
    if (s.isRootSpan) {
      const traceFields = traceFieldsOf(s);
      if (Object.keys(traceFields).length > 0) context.with(opened.context, () => updateCurrentTrace(traceFields));
    }
    const type = spanTypeOf(s.type);
    if (type === "llm") {
      const generation = readGeneration(s);
      // Messages when Mastra's input reads as messages; else the raw input taken at the start stays.
      if (generation.input.length > 0) opened.setInput(generation.input);
      if (s.errorInfo) {
        setMetadata(opened, generation.result.metadata);
        opened.fail(mastraError(s.errorInfo));
      } else finishCall(opened, this.options, generation.input, generation.result);
      return;
    }
    if (type === null) return;
    const mapped = readSpan(type, s);
    opened.rename(mapped.name);
    opened.set(mapped.fields);
    if (mapped.input !== undefined) opened.setInput(mapped.input);
    setMetadata(opened, mapped.metadata);
    if (s.errorInfo) opened.fail(mastraError(s.errorInfo));
    else opened.end(mapped.output);
  }
}

/** Mastra's error info as an Error: its message and class name. */
function mastraError(info: { message?: unknown; name?: unknown }): Error {
  const err = new Error(typeof info.message === "string" ? info.message : "Mastra span failed");
  if (typeof info.name === "string" && info.name) err.name = info.name;
  return err;
}
