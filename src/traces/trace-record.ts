import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { traceUuid } from "../spans/ids.js";
import { NOT_OPEN, type OpenSpans, openSpansIn, withOpenSpan, withoutOpenSpan } from "./open-spans.js";
import { keptShapes } from "../spans/kept-shapes.js";
import type { LateUpdate, TraceFields, TracePhase, TraceView } from "./trace-view.js";

/**
 * Everything the SDK holds about one trace until it has been delivered and no span is open: the
 * trace room's own state. Only `traces/` imports this module (the lint holds it): every other room
 * reads a {@link TraceView} and changes a trace through the room's intents.
 */
/** A bridged local root that ended, waiting for the rest of its trace: `markBase` types it when kept. */
export interface PendingRoot {
  readonly span: ReadableSpan;
  readonly markBase: () => void;
}

export interface TraceRecord extends TraceView {
  phase: TracePhase;
  open: number;
  spans: ReadableSpan[];
  spanCount: number;
  root?: ReadableSpan | undefined;
  sentEndTime?: HrTime | undefined;
  fields: TraceFields;
  late?: LateUpdate | undefined;
  putInFlight: boolean;
  busy: boolean;
  busyAt: number;
  /** Woken whenever something about this trace was sent or given up; made on first wait. */
  waiters?: Set<() => void>;
  failure?: string | undefined;
  partLost?: string | undefined;
  startedAt: number;
  /**
   * Spans started and not yet ended (the objects), to send them marked if the trace is
   * force-ended. Changed only through {@link addOpenSpan}, {@link endOpenSpan} and {@link clearOpenSpans}.
   */
  readonly openSpans: Iterable<ReadableSpan>;
  /** Span ids that kept spans name as their parent: past `maxSpansPerTrace` these are still kept. */
  neededParents?: Set<string>;
  droppedSpans: number;
  droppedReported: number;
  held?: ReadableSpan[] | undefined;
  /**
   * Bridged local roots that ended while spans of the trace still ran: decided when they end.
   * Several when requests that share an incoming `traceparent` run at once (each its own root).
   */
  pendingRoots?: PendingRoot[] | undefined;
  /** Spans of other instrumentations left out (HTTP, DB ...) → their parent: kept spans re-parent past them. */
  transparent?: Map<string, string | null>;
  discarded?: boolean | undefined;
  apiKey?: string | undefined;
}

/** The record behind a view: for the room's intents, which are the only writers. */
export function recordOf(view: TraceView): TraceRecord {
  return view as TraceRecord;
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
  declare pendingRoots?: PendingRoot[];
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
