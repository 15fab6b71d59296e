import type { HrTime } from "@opentelemetry/api";
import { type Logger, redact } from "../logger.js";
import type { JsonValue } from "../spans/json-value.js";
import { foreignSpanData, getSpanData, parentSpanIdOf, type SpanData } from "../spans/span-data.js";
import { hrTimeToIso, isLater } from "../spans/time.js";
import { isJoinedRemotely } from "../traces/joined-remotely.js";
import type { LateBatch, OutgoingTrace } from "../traces/outgoing.js";
import type { TraceFields, TraceView } from "../traces/trace-view.js";
import { type PreparedTrace, writeToSlab } from "./batch-body.js";
import { forgetJsonText } from "./json-text.js";
import { JsonBytes } from "./json-bytes.js";
import { sentInput, sentName, sentOutput } from "./span-bytes.js";
import { type FilledReporter, SpanRun, type TraceReading, TYPE_BITS, writeUpdate } from "./wire-bytes.js";
import { FLAT_TEST_CASE_FIELDS, REQUIRED_FIELD_PLACEHOLDERS, shapeTraceValue, type SpanListKey, spanListKeys } from "./wire.js";

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
  /** The data of the spans of the trace being written, from index 0 (reused: its entries let go of after each trace). */
  private readonly datas: SpanData[] = [];
  /** The trace being written, read (reused: one trace at a time, nothing of it kept after). */
  private readonly reading: TraceReading = {
    traceId: "",
    name: undefined,
    start: NO_TIME,
    end: NO_TIME,
    status: "SUCCESS",
    environment: undefined,
    spans: NO_SPANS,
    datas: NO_DATAS,
    types: 0,
    input: undefined,
    output: undefined,
    tail: undefined,
  };

  constructor(
    private readonly options: TraceBodiesOptions,
    private readonly logger: Logger,
  ) {}

  /** Writes a trace taken into a request (`markSending`) into `slab`, straight from its spans. */
  prepare(out: OutgoingTrace, slab: JsonBytes): PreparedTrace {
    try {
      return writeToSlab(slab, out.rec, this.read(out), this.reportFilled, out.spans.length);
    } finally {
      // The reading is reused for the next trace: nothing of this one is held by it (nor when
      // reading it threw).
      const t = this.reading;
      t.spans = NO_SPANS;
      t.datas = NO_DATAS;
      // The list is kept (emptying it would let go of its room, made again by the next trace):
      // its entries are let go of, and a list grown by a large trace is let go of whole.
      const datas = this.datas;
      if (datas.length > KEPT_DATAS) datas.length = 0;
      else datas.fill(NO_DATA, 0, out.spans.length);
      t.name = t.environment = t.input = t.output = t.tail = undefined;
      forgetJsonText();
    }
  }

  /**
   * Reads a trace for its request into the one reading this writes: the data of each span (once:
   * a foreign span's is made when read), its end (its latest span's), its name, input and output
   * (the root span's where the app set none, or for a bridged root, those of the earliest span
   * directly under it that has them: the request's agent) and the fields set on it.
   */
  private read(out: OutgoingTrace): TraceReading {
    const { rec, root, spans, fields: f } = out;
    const rootData = getSpanData(root);
    const datas = this.datas;
    let end = root.endTime;
    let types = 0;
    let rootIndex = -1;
    // A bridged local root (a web framework's server span) carries no input or output.
    const bridgedRootId = rootData === undefined ? root.spanContext().spanId : undefined;
    let under = -1;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const data = getSpanData(span) ?? foreignSpanData(span);
      datas[i] = data;
      types |= TYPE_BITS[data.type];
      if (span === root) rootIndex = i;
      if (isLater(span.endTime, end)) end = span.endTime;
      if (bridgedRootId !== undefined && parentSpanIdOf(span) === bridgedRootId && (sentInput(data) !== undefined || sentOutput(data) !== undefined)) {
        if (under < 0 || isLater(spans[under]!.startTime, span.startTime)) under = i;
      }
    }
    const t = this.reading;
    t.traceId = rec.traceId;
    t.start = root.startTime;
    t.end = end;
    t.status = root.status.code === 2 ? "ERRORED" : "SUCCESS";
    t.spans = spans;
    t.datas = datas;
    t.types = types;
    const rootRead = rootIndex >= 0 ? datas[rootIndex] : undefined;
    t.name = f.name ?? (rootRead ? rootName(root, rootRead) : root.name);
    t.environment = f.environment ?? this.options.environment;
    // Spans of other instrumentations carry no span data: their mapped fields stand in.
    let input = f.input ?? rootData?.input ?? (rootRead && sentInput(rootRead)) ?? (under >= 0 ? sentInput(datas[under]!) : undefined);
    let output = f.output ?? rootData?.output ?? (rootRead && sentOutput(rootRead)) ?? (under >= 0 ? sentOutput(datas[under]!) : undefined);
    if (input !== undefined) input = shapeTraceValue(input);
    if (output !== undefined) output = shapeTraceValue(output);
    // A trace's test case is also its input/output (unless the app set those), and its fields flat.
    const tc = testCaseOf(f.llmTestCase);
    if (tc !== undefined) {
      if (f.input === undefined && typeof tc.input === "string") input = tc.input;
      if (f.output === undefined && typeof tc.actualOutput === "string") output = tc.actualOutput;
    }
    t.input = input;
    t.output = output;
    t.tail = traceTail(f, tc);
    return t;
  }

  /**
   * Puts into `body` a late part of a delivered trace, taken off its record (`nextLateBatch`):
   * its spans and the trace fields set late. Returns the trace's end time as the update leaves it
   * (an `endTime` is written only when it moved, and never for a trace joined from a remote
   * caller). `body` stays empty when there is nothing to say.
   */
  update(rec: TraceView, late: LateBatch, body: Record<string, unknown>): HrTime | undefined {
    const lists: Partial<Record<SpanListKey, SpanRun>> = {};
    let endTime = rec.sentEndTime;
    for (const span of late.spans) {
      const data = getSpanData(span) ?? foreignSpanData(span);
      (lists[spanListKeys[data.type]] ??= new SpanRun()).add(span, data);
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
    writeUpdate(w, body, this.reportFilled);
    return redact(w.text(), secrets);
  }

  /** Says once per field that a span was sent with a required field's placeholder. */
  private readonly reportFilled: FilledReporter = (field) => {
    if (this.warnedFilled.has(field)) return;
    this.warnedFilled.add(field);
    this.logger.warn(
      `${field === "model" ? "an llm span" : "a retriever span"} had no ${field}; sent as "${REQUIRED_FIELD_PLACEHOLDERS[field]}" (the service requires one: set it in observe() options or updateCurrentSpan)`,
    );
  };
}

/**
 * The fields of a trace after its `output`, in the order they are sent (undefined: none, as for
 * most traces): tags, metadata, threadId, userId, metricCollection, the test case, the test-case
 * fields set on it, then those of its test case it has not set, sent flat.
 */
function traceTail(f: Readonly<TraceFields>, tc: { readonly [key: string]: JsonValue } | undefined): Record<string, unknown> | undefined {
  if (f.tags.length === 0 && !hasOwnKeys(f.metadata) && f.threadId === undefined && f.userId === undefined && f.metricCollection === undefined && f.llmTestCase === undefined && !hasOwnKeys(f.extra)) return undefined;
  const tail: Record<string, unknown> = {};
  if (f.tags.length > 0) tail.tags = [...new Set(f.tags)];
  if (hasOwnKeys(f.metadata)) tail.metadata = f.metadata;
  if (f.threadId !== undefined) tail.threadId = f.threadId;
  if (f.userId !== undefined) tail.userId = f.userId;
  if (f.metricCollection !== undefined) tail.metricCollection = f.metricCollection;
  if (f.llmTestCase !== undefined) tail.llmTestCase = f.llmTestCase;
  Object.assign(tail, f.extra);
  if (tc !== undefined) for (const key of FLAT_TEST_CASE_FIELDS) if (tc[key] !== undefined && tail[key] === undefined) tail[key] = tc[key];
  return tail;
}

/** A test case, when it is an object. */
function testCaseOf(tc: JsonValue | undefined): { readonly [key: string]: JsonValue } | undefined {
  return tc !== null && typeof tc === "object" && !Array.isArray(tc) ? tc : undefined;
}

/** Whether an object has an own enumerable key, without making the list of them. */
function hasOwnKeys(obj: object): boolean {
  for (const key in obj) if (Object.hasOwn(obj, key)) return true;
  return false;
}

/** The root span's name as sent (a field of its data named `name` stands in, as on the span). */
function rootName(root: OutgoingTrace["root"], data: SpanData): unknown {
  return Object.hasOwn(data.fields, "name") ? data.fields.name : sentName(root, data);
}

const NO_TIME: HrTime = Object.freeze([0, 0]) as unknown as HrTime;
const NO_SPANS: OutgoingTrace["spans"] = Object.freeze([]);
const NO_DATAS: readonly SpanData[] = Object.freeze([]);
/** What the reused list of span data holds between traces. */
const NO_DATA: SpanData = Object.freeze({ type: "base", fields: Object.freeze({}) }) as SpanData;
/** Entries of that list kept between traces (a larger trace's list is let go of). */
const KEPT_DATAS = 256;
