import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { type Logger, redact } from "../logger.js";
import { getSpanData, parentSpanIdOf, setParentOverride } from "../spans/span-data.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { hrTimeToIso, isLater } from "../spans/time.js";
import { joinedRemotely, type LateUpdate, readFields, type TraceRecord } from "../assemble/trace-record.js";
import { DROPPED_SPANS_KEY, isUnfinished, TRUNCATED_KEY, UNFINISHED_SPAN_KEY } from "../assemble/unfinished.js";
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
 * A finished trace record made into what its requests carry: the whole trace for
 * `POST /v1/traces`, written straight into a batch's bytes ({@link prepare}), and what arrived
 * after it was sent for `PUT /v1/traces/:uuid` ({@link update}, {@link updateText}). Both send
 * only spans whose parent the service has or gets in the same request, and both fill the fields
 * the service requires, warning once per field.
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

  /**
   * Builds the wire trace and writes it into `slab`; from here on, spans of this trace that end
   * are late updates.
   */
  prepare(rec: TraceRecord, slab: JsonBytes): PreparedTrace {
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
   * Writes into `body` a late update of a delivered trace, made of `late` (which the caller took
   * off the record): the spans that can go now, spans held back earlier among them (a span whose
   * parent is still open waits in `rec.held`), the trace fields set late, and the count of dropped
   * spans the service was not told yet. `late.spans` becomes the spans it carries. Returns the
   * trace's end time as the update leaves it (an `endTime` is written only when it moved, and
   * never for a trace joined from a remote caller). `body` stays empty when there is nothing to say.
   */
  update(rec: TraceRecord, late: LateUpdate, body: Record<string, unknown>): HrTime | undefined {
    const candidates = rec.held ? [...rec.held.splice(0), ...late.spans] : late.spans;
    resolveParents(rec, candidates);
    late.spans = holdBack(rec, candidates);
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
