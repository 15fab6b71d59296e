import type { Clock } from "../clock.js";
import type { TransportOutcome } from "../http/transport.js";
import type { Logger } from "../logger.js";
import type { TraceBodies } from "../encode/trace-body.js";
import { isJoinedRemotely } from "../traces/joined-remotely.js";
import { endLateSending, markLateSent, markPartLost, startLateSending } from "../traces/late-parts.js";
import { nextLateBatch } from "../traces/outgoing.js";
import { isSent, type TraceView } from "../traces/trace-view.js";
import { notify } from "../traces/trace-waiters.js";
import { UnknownTraceRetry } from "./late-retry.js";
import type { Requests } from "./requests.js";
import type { Settlement } from "./settlement.js";
import type { ExporterCounters } from "./types.js";

/** What late updates need, handed in by the composition root. */
export interface LateUpdatesOptions {
  requests: Requests;
  bodies: TraceBodies;
  settlement: Settlement;
  counters: Pick<ExporterCounters, "updatesDelivered" | "updatesFailed" | "spansNotUpdatable" | "retries" | "updatesOrphaned">;
  clock: Clock;
  logger: Logger;
  /** Scrubbed from every update, should the app trace a value that contains it. */
  apiKey?: string | undefined;
  /** Most updates waiting for their trace to reach the service at once (late-retry.ts). */
  maxWaiting: number;
}

/**
 * What arrives after a trace was sent (spans that end later, trace fields set then), sent as
 * `PUT /v1/traces/:uuid`, one at a time per trace. A service that refuses the method is not
 * asked again; an update that reaches the service before its trace is retried (late-retry.ts).
 */
export class LateUpdates {
  /** False once the service refused `PUT /v1/traces/:uuid` as unsupported. */
  private putSupported = true;
  /** Late updates that reached the service before their trace, retried (late-retry.ts). */
  private readonly unknownTrace: UnknownTraceRetry;

  constructor(private readonly options: LateUpdatesOptions) {
    const { clock, logger, counters, maxWaiting } = options;
    this.unknownTrace = new UnknownTraceRetry({ clock, logger, counters, maxWaiting });
  }

  /** Starts sending the late updates of a delivered trace; the caller checked that no PUT of it is in flight. */
  start(rec: TraceView): void {
    startLateSending(rec);
    void this.sendUpdates(rec);
  }

  /** Ends the waits for traces the service does not know yet (the SDK shuts down). */
  stop(): void {
    this.unknownTrace.stop();
  }

  /** Sends the late updates of a delivered trace, one PUT at a time, until none is left. */
  private async sendUpdates(rec: TraceView): Promise<void> {
    const { requests, bodies, settlement, counters, logger } = this.options;
    while (isSent(rec)) {
      const late = nextLateBatch(rec);
      if (late === undefined) break;
      const body: Record<string, unknown> = {};
      const endTime = bodies.update(rec, late, body);
      if (Object.keys(body).length === 0) continue;
      if (!this.putSupported) {
        counters.spansNotUpdatable += late.spans.length;
        if (isJoinedRemotely(rec)) settlement.fail(rec, "the service does not take PUT /v1/traces/:uuid");
        else markPartLost(rec, "the service does not take PUT /v1/traces/:uuid");
        continue;
      }
      const path = `/v1/traces/${encodeURIComponent(rec.uuid)}`;
      const json = bodies.updateText(body, [this.options.apiKey, rec.apiKey]);
      const outcome = await this.unknownTrace.put(rec, () => requests.sendInSlot("PUT", path, json, rec.apiKey));
      if (!outcome.ok && outcome.status !== undefined && putRefusals.has(outcome.status)) {
        const first = this.putSupported;
        this.putSupported = false;
        counters.spansNotUpdatable += late.spans.length;
        if (first) logger.warn(
          `the service refused PUT /v1/traces/:uuid (${outcome.message}): what ends after its trace was sent is not delivered from now on (${late.spans.length} span(s) so far; stats().spansNotUpdatable counts them)`,
        );
        if (isJoinedRemotely(rec)) settlement.fail(rec, outcome.message);
        else markPartLost(rec, outcome.message);
        notify(rec);
        continue;
      }
      // 409 to a retry: an earlier attempt whose answer was lost stored it ("already stored").
      if (outcome.ok || storedByEarlierAttempt(outcome)) {
        counters.updatesDelivered++;
        markLateSent(rec, endTime);
      } else {
        counters.updatesFailed++;
        logger.error(`late update of trace ${rec.uuid} not delivered (${late.spans.length} span(s)): ${outcome.message}`);
        // A callee's part of another process's trace is all it sends of it: not delivered.
        if (isJoinedRemotely(rec)) settlement.fail(rec, outcome.message);
        else markPartLost(rec, outcome.message);
      }
      notify(rec);
    }
    endLateSending(rec);
    settlement.settle(rec);
  }
}

/** Answers to `PUT /v1/traces/:uuid` that mean the service does not take it at all. */
const putRefusals = new Set([405, 415, 501]);

/** A 409 answering a retry: the attempt whose answer was lost had stored it. */
function storedByEarlierAttempt(outcome: TransportOutcome): boolean {
  return !outcome.ok && outcome.status === 409 && outcome.attempts > 1;
}
