import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { type Logger, redact } from "../logger.js";
import { getSpanData, parentSpanIdOf } from "../spans/span-data.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { hrTimeToIso, isLater } from "../spans/time.js";
import { isJoinedRemotely } from "../traces/joined-remotely.js";
import type { LateBatch, OutgoingTrace } from "../traces/outgoing.js";
import type { TraceView } from "../traces/trace-view.js";
import { isUnfinished, UNFINISHED_SPAN_KEY } from "../traces/unfinished.js";
import { type PreparedTrace, writeToSlab } from "./batch-body.js";
import { forgetJsonText } from "./json-text.js";
import { JsonBytes } from "./json-bytes.js";
import { writeUpdate } from "./wire-bytes.js";
import { applyTestCase, fillRequired, HEAD, NO_SPANS, shapeTraceValue, spanListKeys, type TraceHead, toWireSpan, type WireSpan, type WireTrace } from "./wire.js";

/** What the bodies need of the options. */
export interface TraceBodiesOptions {
  /** A trace's environment when the app set none. */
  environment: string;
}

/**
 * What a trace's requests carry, made from what the trace room took off its record
 * (traces/outgoing.ts): the whole trace for `POST /v1/traces`, written straight into a batch's
 * bytes ({@link prepare}), and a late part for `PUT /v1/traces/:uuid` ({@link update},
 * {@link updateText}). Both fill the fields the service requires, warning once per field. A pure
 * step: it changes nothing of the trace.
 */
export class TraceBodies {
  /**
   * Where bodies and updates are written other than in a batch's slab (one at a time: each is
   * copied out before anything awaits); the exporter's batches that outgrow their slab use it too.
   */
  readonly writer = new JsonBytes();
  private readonly warnedFilled = new Set<string>();

  constructor(
    private readonly options: TraceBodiesOptions,
    private readonly logger: Logger,
  ) {}

  /** Builds the wire trace of a trace taken into a request (`markSending`) and writes it into `slab`. */
  prepare(out: OutgoingTrace, slab: JsonBytes): PreparedTrace {
    const { rec, root, spans, fields: f } = out;
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
    // A bridged local root (a web framework's server span) carries no input or output: the trace
    // may read them from the earliest span directly under it that has them (the request's agent).
    const bridgedRootId = rootData === undefined ? root.spanContext().spanId : undefined;
    let under: { span: ReadableSpan; wire: WireSpan } | undefined;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const spanWire = toWireSpan(span);
      if (bridgedRootId !== undefined && (spanWire.input !== undefined || spanWire.output !== undefined) && parentSpanIdOf(span) === bridgedRootId) {
        if (under === undefined || isLater(under.span.startTime, span.startTime)) under = { span, wire: spanWire };
      }
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
    wire[HEAD] = { traceId: rec.traceId, start: root.startTime, end: endTime };
    if (f.name === undefined && rootWire) wire.name = rootWire.name;
    // Spans of other instrumentations carry no span data: their mapped fields stand in.
    const input = f.input ?? rootData?.input ?? rootWire?.input ?? under?.wire.input;
    const output = f.output ?? rootData?.output ?? rootWire?.output ?? under?.wire.output;
    if (input !== undefined) wire.input = shapeTraceValue(input);
    if (output !== undefined) wire.output = shapeTraceValue(output);
    if (f.tags.length > 0) wire.tags = [...new Set(f.tags)];
    if (hasOwnKeys(f.metadata)) wire.metadata = f.metadata;
    if (f.threadId !== undefined) wire.threadId = f.threadId;
    if (f.userId !== undefined) wire.userId = f.userId;
    if (f.metricCollection !== undefined) wire.metricCollection = f.metricCollection;
    if (f.llmTestCase !== undefined) wire.llmTestCase = f.llmTestCase;
    Object.assign(wire, f.extra);
    // A trace's test case is also its input/output (unless the app set those) and flat fields.
    if (f.llmTestCase !== undefined) applyTestCase(wire, "trace", f.input === undefined, f.output === undefined);
    forgetJsonText();
    keptShapes.wireTrace = wire;
    return writeToSlab(slab, rec, wire, spanCount, endTime);
  }

  /**
   * Writes into `body` a late part of a delivered trace, taken off its record (`nextLateBatch`):
   * its spans and the trace fields set late. Returns the trace's end time as the update leaves it
   * (an `endTime` is written only when it moved, and never for a trace joined from a remote
   * caller). `body` stays empty when there is nothing to say.
   */
  update(rec: TraceView, late: LateBatch, body: Record<string, unknown>): HrTime | undefined {
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
    if (endTime && rec.sentEndTime !== endTime && !isJoinedRemotely(rec)) body.endTime = hrTimeToIso(endTime);
    if (late.output !== undefined) body.output = shapeTraceValue(late.output);
    if (late.environment !== undefined) body.environment = late.environment;
    if (late.metadata) body.metadata = late.metadata;
    if (late.tags) body.tags = late.tags;
    return endTime;
  }

  /** The JSON text of an update's body, `secrets` scrubbed from it. */
  updateText(body: Record<string, unknown>, secrets: readonly (string | undefined)[]): string {
    const w = this.writer;
    w.reset();
    writeUpdate(w, body);
    return redact(w.text(), secrets);
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

