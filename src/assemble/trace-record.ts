import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonValue } from "../spans/json-value.js";
import { traceUuid } from "../spans/ids.js";
import { NOT_OPEN, type OpenSpans, openSpansIn, withOpenSpan, withoutOpenSpan } from "./open-spans.js";
import { keptShapes } from "../spans/kept-shapes.js";

/** Trace-level fields set through `updateCurrentTrace`, already JSON-safe. */
export interface TraceFields {
  name?: string;
  input?: JsonValue;
  output?: JsonValue;
  threadId?: string;
  userId?: string;
  environment?: string;
  metricCollection?: string;
  llmTestCase?: JsonValue;
  tags: string[];
  metadata: { [key: string]: JsonValue };
  /** Test-case fields (expectedOutput, context, ...). */
  extra: { [key: string]: JsonValue };
}

/** What arrived after a trace was handed to a request: it goes out as `PUT /v1/traces/:uuid`. */
export interface LateUpdate {
  spans: ReadableSpan[];
  output?: JsonValue;
  environment?: string;
  metadata?: { [key: string]: JsonValue };
  tags?: string[];
}

/**
 * Where a trace is in its life: `open` (root running), `queued` (root ended, waiting for a
 * batch), `sending` (in a request), `sent` (acknowledged), `failed` (given up or dropped).
 */
export type TracePhase = "open" | "queued" | "sending" | "sent" | "failed";

/** Everything the SDK holds about one trace until it has been delivered and no span is open. */
export interface TraceRecord {
  readonly traceId: string;
  /** The trace's service uuid (formatted on each read: most records only need it once, when sent). */
  readonly uuid: string;
  phase: TracePhase;
  /** Spans started and not yet ended. */
  open: number;
  /** Ended spans not yet handed to a request. */
  spans: ReadableSpan[];
  /** Spans kept so far (bounded by maxSpansPerTrace). */
  spanCount: number;
  root?: ReadableSpan;
  /** Latest end time sent so far, to extend the trace's `endTime` when late spans end later. */
  sentEndTime?: HrTime;
  fields: TraceFields;
  late?: LateUpdate;
  putInFlight: boolean;
  /** True from hand-off to the exporter until everything about the trace was sent or given up. */
  busy: boolean;
  /** When it last became busy, in the exporter's count of records becoming busy (for flushes). */
  busyAt: number;
  /** Woken whenever something about this trace was sent or given up; made on first wait. */
  waiters?: Set<() => void>;
  /** Why the trace failed, when it did. */
  failure?: string;
  /** Why a late update of the delivered trace was given up, when one was: flush() reports the trace. */
  partLost?: string;
  /** The clock's time when the record was made (its first span started), for `maxTraceDurationMillis`. */
  startedAt: number;
  /**
   * Spans started and not yet ended (the objects), to send them marked if the trace is
   * force-ended. Changed only through {@link addOpenSpan}, {@link endOpenSpan} and {@link clearOpenSpans}.
   */
  readonly openSpans: Iterable<ReadableSpan>;
  /** Span ids that kept spans name as their parent: past `maxSpansPerTrace` these are still kept. */
  neededParents?: Set<string>;
  /** Spans dropped past `maxSpansPerTrace`, and how many of those the service was told of. */
  droppedSpans: number;
  droppedReported: number;
  /** Ended spans held back because their parent is still open: sent right after it. */
  held?: ReadableSpan[];
  /** A bridged local root that ended while spans under it still ran: decided when they end. */
  pendingRoot?: { span: ReadableSpan; markBase: () => void };
  /** Spans of other instrumentations left out (HTTP, DB ...) → their parent: kept spans re-parent past them. */
  transparent?: Map<string, string | null>;
  /** Set when the app dropped the trace (`updateCurrentTrace({ drop: true })`): nothing more of it is sent. */
  discarded?: boolean;
  /** The project key the trace goes to, when not the configured one (`observe({ apiKey })`). */
  apiKey?: string;
}

/**
 * Traces this process records as the callee of another service: their spans hang under a span
 * of a trace that the caller's process sends, so they go out as late updates of it (never
 * `POST`), and without an `endTime` (the caller knows when its trace ended). The assembler adds
 * a record when its first span has a remote evaltrace parent.
 */
export const joinedRemotely = new WeakSet<TraceRecord>();

/**
 * Whether a trace joined from a remote caller still has a request being served: a span whose
 * parent is the caller's is open (for `deliver()`, that is another request, not work left running).
 */
export function servesRemoteCaller(rec: TraceRecord): boolean {
  if (!joinedRemotely.has(rec)) return false;
  for (const span of rec.openSpans) if (span.parentSpanContext?.isRemote) return true;
  return false;
}

export function newTraceRecord(traceId: string, startedAt: number): TraceRecord {
  return new HeldTrace(traceId, startedAt);
}

/**
 * A record, its `fields` made on first use: most traces never set any (`updateCurrentTrace`),
 * and every trace held until delivered would otherwise hold four empty containers.
 */
class HeldTrace implements TraceRecord {
  phase: TracePhase = "open";
  open = 0;
  spans: ReadableSpan[] = [];
  spanCount = 0;
  root?: ReadableSpan = undefined;
  sentEndTime?: HrTime = undefined;
  putInFlight = false;
  busy = false;
  busyAt = 0;
  droppedSpans = 0;
  droppedReported = 0;
  /** The open spans: none, one, a few (an array) or many (a set); see open-spans.ts. */
  open_: OpenSpans = undefined;
  // Set on few traces (late spans, waiters, limits, bridged roots): declared, not made, so that
  // the many records that never have them are that much smaller while they wait to be sent.
  declare late?: LateUpdate;
  declare waiters?: Set<() => void>;
  declare failure?: string;
  declare partLost?: string;
  declare neededParents?: Set<string>;
  declare held?: ReadableSpan[];
  declare pendingRoot?: { span: ReadableSpan; markBase: () => void };
  declare transparent?: Map<string, string | null>;
  declare private madeFields: TraceFields | undefined;

  constructor(
    readonly traceId: string,
    public startedAt: number,
  ) {
    keptShapes.record = this;
  }

  get uuid(): string {
    return traceUuid(this.traceId);
  }

  /** The fields if anything set them, without making them. */
  get fieldsIfSet(): TraceFields | undefined {
    return this.madeFields;
  }

  get fields(): TraceFields {
    return (this.madeFields ??= { tags: [], metadata: {}, extra: {} });
  }

  set fields(value: TraceFields) {
    this.madeFields = value;
  }

  get openSpans(): Iterable<ReadableSpan> {
    return openSpansIn(this.open_);
  }
}

/** A record's fields for reading: those set, or none (shared, frozen) without making any. */
export function readFields(rec: TraceRecord): TraceFields {
  return rec instanceof HeldTrace ? (rec.fieldsIfSet ?? NO_FIELDS) : rec.fields;
}

const NO_FIELDS: TraceFields = Object.freeze({ tags: Object.freeze([]) as unknown as string[], metadata: Object.freeze({}), extra: Object.freeze({}) });

/** Records a span of the trace as started. */
export function addOpenSpan(rec: TraceRecord, span: ReadableSpan): void {
  const held = rec as HeldTrace;
  held.open_ = withOpenSpan(held.open_, span);
  rec.open++;
}

/** Marks an open span of the record ended: false when it was not open there. */
export function endOpenSpan(rec: TraceRecord, span: ReadableSpan): boolean {
  const held = rec as HeldTrace;
  const left = withoutOpenSpan(held.open_, span);
  if (left === NOT_OPEN) return false;
  held.open_ = left;
  rec.open--;
  return true;
}

/** Forgets every open span of the record (they were force-ended, or the trace was let go). */
export function clearOpenSpans(rec: TraceRecord): void {
  (rec as HeldTrace).open_ = undefined;
}

/** Wakes everyone waiting on a record. */
export function notify(rec: TraceRecord): void {
  if (rec.waiters) for (const wake of [...rec.waiters]) wake();
}

/** Resolves when `done()` is true, re-checked each time the record changes. */
export function waitFor(rec: TraceRecord, done: () => boolean): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (done()) {
        rec.waiters?.delete(check);
        resolve();
      }
    };
    (rec.waiters ??= new Set()).add(check);
  });
}

/** Nothing more to send about this trace: delivered with its late updates, or given up. */
export function isSettled(rec: TraceRecord): boolean {
  return rec.phase === "failed" || (rec.phase === "sent" && !rec.late && !rec.putInFlight);
}
