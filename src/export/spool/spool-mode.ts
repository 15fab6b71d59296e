import type { Clock } from "../../clock.js";
import type { Logger } from "../../logger.js";

/**
 * What the spool does now (`stats().spoolMode`, docs/spool.md):
 * - `"none"`: no spool (not configured, or it failed: as without one);
 * - `"memory-first"`: the service answers; batches are sent from memory, and go to disk only when
 *   a request fails for want of the service, or the queue outgrows what the service takes;
 * - `"write-ahead"`: the service answers, and every batch is written before it is sent
 *   (`spool: { writeAhead: true }`);
 * - `"outage"`: a request failed for want of the service and none was answered since: every
 *   batch goes to disk (with write-ahead or not) and the replay is what tries the service.
 */
export type SpoolModeName = "none" | "memory-first" | "write-ahead" | "outage";

/** During an outage, the longest a finished trace waits in memory before its batch is taken to the spool. */
export const OUTAGE_SPILL_MILLIS = 500;

/**
 * Whether the exporter is in an outage: entered when a request failed for want of the service (no
 * answer, a timeout, 408, 429 or 5xx), left when the service answers one (a batch's or a
 * replay's). One owner of that state; the exporter reads it, the spool's replay tells it.
 */
export class SpoolMode {
  private since: number | undefined;

  constructor(
    private readonly writeAhead: boolean,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  get outage(): boolean {
    return this.since !== undefined;
  }

  /** The mode's name, given whether the spool takes batches at all. */
  name(spoolOpen: boolean): SpoolModeName {
    if (!spoolOpen) return "none";
    if (this.since !== undefined) return "outage";
    return this.writeAhead ? "write-ahead" : "memory-first";
  }

  /** A request failed for want of the service; true when that began an outage. */
  failed(): boolean {
    if (this.since !== undefined) return false;
    this.since = this.clock.now();
    this.logger.info("spool: the service did not take a batch; every batch goes to the spool until it answers again (stats().spoolMode is \"outage\")");
    return true;
  }

  /** The service answered a request: the outage, if any, is over. */
  answered(): void {
    if (this.since === undefined) return;
    const lasted = this.clock.now() - this.since;
    this.since = undefined;
    this.logger.info(`spool: the service answers again after ${lasted} ms; batches are sent ${this.writeAhead ? "after being written ahead" : "from memory"} again`);
  }
}
