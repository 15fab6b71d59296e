import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { Requests } from "./requests.js";
import type { Settlement } from "./settlement.js";
import type { EvaluationOutcome, ExporterCounters } from "./types.js";

/** What offline evaluations need, handed in by the composition root. */
export interface EvaluationsOptions {
  requests: Requests;
  settlement: Settlement;
  counters: Pick<ExporterCounters, "evaluationsDelivered" | "evaluationsFailed">;
  clock: Clock;
  logger: Logger;
  /** How long an awaited evaluation keeps the process alive at most. */
  flushTimeoutMillis: number;
}

/** Offline evaluation requests, each sent once what it refers to was delivered. */
export class Evaluations {
  constructor(private readonly options: EvaluationsOptions) {}

  /**
   * Sends an offline evaluation once `ready()` says that what it refers to was delivered (it
   * resolves with why not, when it was not). With `deferred`, the caller is inside a trace the
   * evaluation waits for, so the returned promise resolves at once (awaiting it would never end);
   * the request still goes out later and `flush()` waits for it (settlement tracks it).
   */
  evaluate(path: string, body: Record<string, unknown>, ready: () => Promise<string | undefined>, deferred = false, apiKey?: string): Promise<EvaluationOutcome> {
    const { requests, counters, logger, clock } = this.options;
    const run = async (): Promise<EvaluationOutcome> => {
      const notReady = await ready();
      if (notReady) {
        counters.evaluationsFailed++;
        logger.warn(`offline evaluation ${path} not sent: ${notReady}`);
        return { status: "failed", error: notReady };
      }
      const json = JSON.stringify(body);
      const outcome = await requests.sendInSlot("POST", path, json, apiKey);
      if (outcome.ok) {
        counters.evaluationsDelivered++;
        return { status: "delivered" };
      }
      counters.evaluationsFailed++;
      logger.warn(`offline evaluation ${path} failed: ${outcome.message}`);
      return { status: "failed", error: outcome.message };
    };
    const p = run().catch((err: unknown) => ({ status: "failed" as const, error: String(err) }));
    this.options.settlement.track(p);
    // The caller may await it: the process lives until it settles (at most flushTimeoutMillis).
    if (!deferred) {
      const keepAlive = clock.setTimeout(() => {}, this.options.flushTimeoutMillis, true);
      void p.then(() => clock.clearTimeout(keepAlive));
    }
    return deferred ? Promise.resolve({ status: "deferred" }) : p;
  }
}
