import type { SpoolModeName } from "./spool/spool-mode.js";

/** Counters of what the exporter did; all monotonic except the gauges `queued`, `inFlight`. */
export interface ExporterStats {
  /** Traces acknowledged by the service. */
  tracesDelivered: number;
  /** Traces given up after retries or rejected by the service. */
  tracesFailed: number;
  /** Traces dropped because the queue was full (maxQueuedTraces). */
  tracesDropped: number;
  /** Retries of any request. */
  retries: number;
  /** Late updates (`PUT /v1/traces/:uuid`) acknowledged / given up. */
  updatesDelivered: number;
  updatesFailed: number;
  /** Offline evaluation requests acknowledged / given up. */
  evaluationsDelivered: number;
  evaluationsFailed: number;
  /** Late spans not sent because the service refused `PUT /v1/traces/:uuid` as unsupported. */
  spansNotUpdatable: number;
  /**
   * Late updates dropped because the service did not know the trace they extend (404) for a
   * minute of retries: a callee's spans whose caller never delivered its trace. Also in `updatesFailed`.
   */
  updatesOrphaned: number;
  /** Traces written to the disk spool (the service could not take them then); see docs/spool.md. */
  tracesSpooled: number;
  /** Spooled traces delivered by a replay (this process's, or left by an earlier one). */
  tracesReplayed: number;
  /** Spooled traces dropped to stay within the spool's `maxBytes` (oldest first), or lost with its directory. */
  tracesDroppedFromSpool: number;
  /** Damaged or truncated spool records skipped by a replay (each a batch of unknown traces). */
  spoolRecordsCorrupt: number;
  /** Requests sent and JSON bytes in their bodies. */
  requests: number;
  bytesSent: number;
  /** Traces waiting for a request now: queued, or in a batch still being taken. */
  queued: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Traces in the disk spool now, awaiting replay (0 without a spool). */
  spooled: number;
  /** Bytes of the disk spool now (0 without a spool). */
  spoolBytes: number;
  /**
   * What the spool does now: `"none"` (no spool, or it failed), `"memory-first"` (the service
   * answers; batches go to disk only once it fails), `"write-ahead"` (the service answers; every
   * batch is written before it is sent), `"outage"` (a request failed for want of the service:
   * every batch goes to disk until it answers again). See docs/spool.md.
   */
  spoolMode: SpoolModeName;
  /**
   * Traces finished and handed to the exporter that are only in memory now (a SIGKILL would lose
   * them): queued, in a batch being taken, in requests in flight not written ahead, or being
   * written to the spool.
   */
  tracesOnlyInMemory: number;
}

/**
 * The exporter's monotonic counters: one object, made by the composition root and handed to each
 * part of the exporter, which counts in it what it does.
 */
export type ExporterCounters = Omit<ExporterStats, "queued" | "inFlight" | "spooled" | "spoolBytes" | "spoolMode" | "tracesOnlyInMemory">;

/** What `flush()` found. */
export interface FlushResult {
  /** True when every trace finished before the call was delivered. */
  ok: boolean;
  /** How many of those traces were delivered. */
  delivered: number;
  /**
   * Uuids of those traces that were given up (rejected, retries exhausted, or dropped), or of
   * which a late update was: spans that ended after the trace was sent, or trace fields set then.
   */
  notDelivered: string[];
  /** Uuids of those traces still undelivered when the timeout passed. */
  pending: string[];
  /** True when the timeout passed before everything settled. */
  timedOut: boolean;
  /**
   * With a spool (`configure({ spool })`): traces on disk when the flush resolved, awaiting replay
   * (this process's and any an earlier process left). Those of this flush are neither delivered
   * nor given up, and make `ok` false. Absent without a spool.
   */
  spooled?: number;
  /**
   * Set when the flush stopped waiting because nothing has answered at the base URL in this
   * process and nothing listens there (the connection was refused, or no such host): why. The
   * traces in `pending` are retried in the background while the process runs; at exit they are
   * given up with one line naming the address and the fix.
   */
  nothingAnswers?: string;
}

/** Outcome of an offline evaluation request. */
export interface EvaluationOutcome {
  /**
   * `delivered`: the service accepted it. `failed`: rejected, given up, or a trace it refers to
   * was not delivered. `deferred`: the call was made inside a trace it must wait for; it goes out
   * after that trace is delivered (and `flush()` waits for it).
   */
  status: "delivered" | "failed" | "deferred";
  /** Why it failed. */
  error?: string;
}

/** The exporter's counters before anything happened. */
export function noWorkYet(): ExporterCounters {
  return {
    tracesDelivered: 0,
    tracesFailed: 0,
    tracesDropped: 0,
    retries: 0,
    updatesDelivered: 0,
    updatesFailed: 0,
    evaluationsDelivered: 0,
    evaluationsFailed: 0,
    spansNotUpdatable: 0,
    tracesSpooled: 0,
    tracesReplayed: 0,
    tracesDroppedFromSpool: 0,
    spoolRecordsCorrupt: 0,
    updatesOrphaned: 0,
    requests: 0,
    bytesSent: 0,
  };
}
