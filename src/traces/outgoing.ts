import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonValue } from "../spans/json-value.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { parentSpanIdOf, setParentOverride } from "../spans/span-data.js";
import { enterSending } from "./trace-phase.js";
import { readFields, recordOf, type TraceRecord } from "./trace-record.js";
import type { TraceFields, TraceView } from "./trace-view.js";
import { DROPPED_SPANS_KEY, TRUNCATED_KEY } from "./unfinished.js";

/**
 * What goes out of a trace, taken off its record: the whole trace when it is taken into a request
 * ({@link markSending}), and each late part after it was sent ({@link nextLateBatch}). Both take
 * only spans whose parent the service has or gets in the same request: a span whose parent is
 * still open waits in the record (`held`) until that parent ends. The encoder reads what these
 * return and changes nothing.
 */

/** A trace taken into a request: its root, the spans that go now, and its fields. */
export interface OutgoingTrace {
  readonly rec: TraceView;
  readonly root: ReadableSpan;
  readonly spans: readonly ReadableSpan[];
  readonly fields: Readonly<TraceFields>;
}

/** A late part of a delivered trace: the spans that go now, and the trace fields set late. */
export interface LateBatch {
  readonly spans: readonly ReadableSpan[];
  readonly output?: JsonValue | undefined;
  readonly environment?: string | undefined;
  readonly metadata?: { readonly [key: string]: JsonValue } | undefined;
  readonly tags?: readonly string[] | undefined;
}

/**
 * Takes a queued trace into a request (`queued → sending`): its sendable spans leave the record
 * (from here on, spans of it that end are late updates), and a count of dropped spans goes into
 * its metadata, reported.
 */
export function markSending(view: TraceView): OutgoingTrace {
  const rec = recordOf(view);
  // Only a queued trace goes into a request: anything else would be sent and never settled. The
  // batch taker counts a throw here as the trace's loss and logs it.
  if (!enterSending(rec)) throw new Error(`trace ${rec.traceId} is ${rec.phase}, not queued: not taken into a request`);
  const root = rec.root!;
  // The trace's fields are read without making them (most traces set none); a dropped-span
  // count goes into its metadata, which then must exist.
  let fields: TraceFields;
  if (rec.droppedSpans > 0) {
    fields = rec.fields;
    fields.metadata[TRUNCATED_KEY] = true;
    fields.metadata[DROPPED_SPANS_KEY] = rec.droppedSpans;
    rec.droppedReported = rec.droppedSpans;
  } else fields = readFields(rec);
  resolveParents(rec, rec.spans);
  const spans = rec.open > 0 ? holdBack(rec, rec.spans) : rec.spans;
  // The request stands for the spans from here on.
  rec.spans = [];
  rec.root = undefined;
  const out: OutgoingTrace = { rec, root, spans, fields };
  keptShapes.outgoingTrace = out;
  return out;
}

/**
 * Takes the late part waiting on a trace, if any: the spans that can go now (spans held back
 * earlier among them), the trace fields set late, and the count of dropped spans the service was
 * not told yet.
 */
export function nextLateBatch(view: TraceView): LateBatch | undefined {
  const rec = recordOf(view);
  const late = rec.late;
  if (!late) return undefined;
  rec.late = undefined;
  const candidates = rec.held ? [...rec.held.splice(0), ...late.spans] : late.spans;
  resolveParents(rec, candidates);
  const spans = holdBack(rec, candidates);
  let metadata = late.metadata;
  if (rec.droppedSpans > rec.droppedReported) {
    metadata = { ...metadata, [TRUNCATED_KEY]: true, [DROPPED_SPANS_KEY]: rec.droppedSpans };
    rec.droppedReported = rec.droppedSpans;
  }
  return { spans, output: late.output, environment: late.environment, metadata, tags: late.tags };
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
