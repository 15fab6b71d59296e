import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonValue } from "../spans/json-value.js";

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
 * Only the trace room moves it (trace-phase.ts).
 */
export type TracePhase = "open" | "queued" | "sending" | "sent" | "failed";

/**
 * A trace as every room outside `traces/` sees it: read-only. The exporter, the tap, the encoder
 * and the floors above read it and change it only through the room's intents (`markSending`,
 * `markSent`, `markFailed`, `nextLateBatch`, ...), as an OpenTelemetry exporter reads a
 * `ReadableSpan` and never the processor's state.
 */
export interface TraceView {
  readonly traceId: string;
  /** The trace's service uuid (formatted on each read: most records only need it once, when sent). */
  readonly uuid: string;
  readonly phase: TracePhase;
  /** Spans started and not yet ended. */
  readonly open: number;
  /** Ended spans not yet handed to a request. */
  readonly spans: readonly ReadableSpan[];
  /** Spans kept so far (bounded by maxSpansPerTrace). */
  readonly spanCount: number;
  readonly root?: ReadableSpan | undefined;
  /** Latest end time sent so far, to extend the trace's `endTime` when late spans end later. */
  readonly sentEndTime?: HrTime | undefined;
  /** The fields set so far (made on first read: {@link readFields} reads without making them). */
  readonly fields: Readonly<TraceFields>;
  readonly late?: Readonly<LateUpdate> | undefined;
  readonly putInFlight: boolean;
  /** True from hand-off to the exporter until everything about the trace was sent or given up. */
  readonly busy: boolean;
  /** When it last became busy, in the exporter's count of records becoming busy (for flushes). */
  readonly busyAt: number;
  /** Why the trace failed, when it did. */
  readonly failure?: string | undefined;
  /** Why a late update of the delivered trace was given up, when one was: flush() reports the trace. */
  readonly partLost?: string | undefined;
  /** The clock's time when the record was made (its first span started), for `maxTraceDurationMillis`. */
  readonly startedAt: number;
  /** Spans started and not yet ended (the objects). */
  readonly openSpans: Iterable<ReadableSpan>;
  /** Spans dropped past `maxSpansPerTrace`, and how many of those the service was told of. */
  readonly droppedSpans: number;
  readonly droppedReported: number;
  /** Ended spans held back because their parent is still open: sent right after it. */
  readonly held?: readonly ReadableSpan[] | undefined;
  /** Set when the app dropped the trace (`updateCurrentTrace({ drop: true })`): nothing more of it is sent. */
  readonly discarded?: boolean | undefined;
  /** The project key the trace goes to, when not the configured one (`observe({ apiKey })`). */
  readonly apiKey?: string | undefined;
}

/** Nothing more to send about this trace: delivered with its late updates, or given up. */
export function isSettled(rec: TraceView): boolean {
  return rec.phase === "failed" || (rec.phase === "sent" && !rec.late && !rec.putInFlight);
}

/** The root still runs (or was never seen): nothing of the trace was handed off yet. */
export function isRunning(rec: TraceView): boolean {
  return rec.phase === "open";
}

/** Handed off, waiting for a batch. */
export function isQueued(rec: TraceView): boolean {
  return rec.phase === "queued";
}

/** The service has the trace: what ends in it from now on is a late update. */
export function isSent(rec: TraceView): boolean {
  return rec.phase === "sent";
}

/** Given up, or dropped: nothing more of it is sent. */
export function isFailed(rec: TraceView): boolean {
  return rec.phase === "failed";
}
