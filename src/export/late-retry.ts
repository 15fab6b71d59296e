import type { Clock, TimerHandle } from "../clock.js";
import { backoffDelay } from "../http/retry.js";
import type { TransportOutcome } from "../http/transport.js";
import { isReportableCount, type Logger } from "../logger.js";
import { isJoinedRemotely } from "../traces/joined-remotely.js";
import type { TraceView } from "../traces/trace-view.js";

type TransportFailure = Extract<TransportOutcome, { ok: false }>;

/** How long a late update is retried while the service does not know its trace yet. */
export const UNKNOWN_TRACE_WINDOW_MILLIS = 60_000;
/** First wait before retrying, doubled each time (with jitter) up to the longest. */
const FIRST_DELAY_MILLIS = 250;
const LONGEST_DELAY_MILLIS = 5_000;

/** Counters the retry updates (the exporter's). */
export interface UnknownTraceCounters {
  retries: number;
  updatesOrphaned: number;
}

/** Options of {@link UnknownTraceRetry}. */
export interface UnknownTraceRetryOptions {
  clock: Clock;
  logger: Logger;
  counters: UnknownTraceCounters;
  /** Most updates waiting for their trace at once; more are given up at once (memory stays bounded). */
  maxWaiting: number;
  /** @default {@link UNKNOWN_TRACE_WINDOW_MILLIS} */
  windowMillis?: number;
}

/**
 * Retries a late update (`PUT /v1/traces/:uuid`) that reached the service before the trace it
 * extends: the service answers 404 for a trace it does not know, which happens when another
 * process (the caller of this service) sends that trace and has not yet. Only updates of traces
 * joined from a remote caller are retried so (see {@link isJoinedRemotely}). The update is sent again with backoff for up to a minute after the first 404
 * (its record stays unsettled, so `flush()` and `shutdown()` wait for it within their budgets),
 * then given up and counted in `updatesOrphaned`. Waits happen outside the request queue: other
 * requests go on meanwhile.
 */
export class UnknownTraceRetry {
  private readonly windowMillis: number;
  /** When each record's updates were first refused as unknown. */
  private readonly firstMiss = new WeakMap<TraceView, number>();
  /** Records given up on: later 404s for them are not waited for again. */
  private readonly orphaned = new WeakSet<TraceView>();
  /** Waits in progress, to end them at shutdown. */
  private readonly sleeping = new Map<TimerHandle, () => void>();
  private stopped = false;

  constructor(private readonly options: UnknownTraceRetryOptions) {
    this.windowMillis = options.windowMillis ?? UNKNOWN_TRACE_WINDOW_MILLIS;
  }

  /**
   * Sends a late update of `rec` with `send` and, while the service answers that the trace is
   * unknown, again with backoff until the window has passed. Resolves with the last outcome; one
   * given up carries why in its message. Never rejects (unless `send` does).
   */
  async put(rec: TraceView, send: () => Promise<TransportOutcome>): Promise<TransportOutcome> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await send();
      if (outcome.ok) {
        this.firstMiss.delete(rec);
        return outcome;
      }
      // Shut down while an attempt of an update that was waiting for its trace was in flight
      // (the closing transport cut it off): given up as waiting, like one shut down in its sleep.
      if (this.stopped && this.firstMiss.has(rec)) return this.orphan(rec, outcome, "the SDK shut down while it waited for the trace");
      // Only a callee's update can precede its trace: for a trace this process sent, a 404 says
      // the service lacks the route, and waiting would only hold up every flush().
      if (outcome.status !== 404 || !isJoinedRemotely(rec)) return outcome;
      const now = this.options.clock.now();
      const first = this.firstMiss.get(rec) ?? now;
      this.firstMiss.set(rec, first);
      const waited = now - first;
      const why = this.reasonToGiveUp(rec, waited);
      if (why !== undefined) return this.orphan(rec, outcome, why);
      this.options.counters.retries++;
      const delay = Math.min(backoffDelay(attempt, FIRST_DELAY_MILLIS, LONGEST_DELAY_MILLIS, Math.random), this.windowMillis - waited);
      this.options.logger.debug(`late update of trace ${rec.uuid}: the service does not know the trace yet; retrying in ${delay} ms`);
      await this.sleep(delay);
      // Woken by shutdown: the transport is closing, another attempt could not go out.
      if (this.stopped) return this.orphan(rec, outcome, "the SDK shut down while it waited for the trace");
    }
  }

  private reasonToGiveUp(rec: TraceView, waited: number): string | undefined {
    if (this.stopped) return "the SDK shut down while it waited for the trace";
    if (this.orphaned.has(rec)) return "an earlier update of this trace was given up";
    if (waited >= this.windowMillis) return `the trace did not reach the service within ${this.windowMillis} ms`;
    if (this.sleeping.size >= this.options.maxWaiting) return `${this.options.maxWaiting} updates were already waiting for their traces`;
    return undefined;
  }

  /** Ends every wait now (the SDK shuts down): each waiting update is given up (counted). */
  stop(): void {
    this.stopped = true;
    for (const [handle, wake] of this.sleeping) {
      this.options.clock.clearTimeout(handle);
      wake();
    }
    this.sleeping.clear();
  }

  private orphan(rec: TraceView, outcome: TransportFailure, why: string): TransportOutcome {
    this.orphaned.add(rec);
    this.firstMiss.delete(rec);
    const counters = this.options.counters;
    counters.updatesOrphaned++;
    if (isReportableCount(counters.updatesOrphaned)) {
      this.options.logger.warn(
        `${counters.updatesOrphaned} late update(s) dropped so far: the service did not know their trace (e.g. ${rec.uuid}: ${why}); stats().updatesOrphaned counts them`,
      );
    }
    return { ...outcome, message: `${outcome.message} (${why})` };
  }

  /** Waits without keeping the process alive: a `flush()` that awaits this keeps it alive itself. */
  private sleep(millis: number): Promise<void> {
    return new Promise((resolve) => {
      const handle = this.options.clock.setTimeout(() => {
        this.sleeping.delete(handle);
        resolve();
      }, millis);
      this.sleeping.set(handle, resolve);
    });
  }
}
