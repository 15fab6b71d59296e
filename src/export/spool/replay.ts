import type { Clock, TimerHandle } from "../../clock.js";
import { isReportableCount, type Logger } from "../../logger.js";
import type { ExporterCounters } from "../types.js";
import { readRecord } from "./format.js";
import type { Segment } from "./segments.js";
import type { Spool } from "./spool.js";

/** How a replayed batch fared: delivered, to be tried again later (the service did not answer), or refused for good. */
export type ReplayOutcome =
  | { kind: "ok" }
  | { kind: "retry"; message: string }
  /** `traces`: how many of the batch were refused, when not all (the rest were stored: a 409 answered trace by trace). */
  | { kind: "refused"; message: string; traces?: number };

/** Sends a spooled body with its first `Idempotency-Key`, once (no retries: the replayer tries again later). */
export type ReplaySend = (body: Uint8Array, key: string) => Promise<ReplayOutcome>;

/** What the replayer counts. */
export type ReplayCounters = Pick<ExporterCounters, "tracesReplayed" | "tracesFailed" | "spoolRecordsCorrupt" | "tracesDroppedFromSpool">;

/** While the spool holds records and the service does not answer, one replay attempt this often. */
export const REPLAY_RETRY_MILLIS = 2_000;

/**
 * Replays the spool's segments, oldest first and each in order, one request at a time, each
 * with the `Idempotency-Key` its batch was first sent with (a batch the service stored before its
 * answer was lost, or before the process died, is applied once). A segment is deleted once all
 * its records were replayed; a damaged or truncated record is skipped and counted. A run starts
 * when the service answered (`kick()`), at start, and every {@link REPLAY_RETRY_MILLIS} while
 * something is spooled; it stops at the first batch the service does not take.
 */
export class Replayer {
  private running: Promise<void> | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly spool: Spool,
    private readonly send: ReplaySend,
    private readonly counters: ReplayCounters,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Starts a run unless one runs (the service answered, or something was spooled). */
  kick(): void {
    if (this.running !== undefined || this.stopped) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.run()
      .catch((err: unknown) => this.spool.failReads(err))
      .finally(() => {
        this.running = undefined;
        this.later();
      });
  }

  /** Arms the retry timer when something is left (or new segments may appear). */
  later(): void {
    if (this.stopped || this.timer !== undefined || this.running !== undefined || !this.spool.replayable) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, REPLAY_RETRY_MILLIS);
  }

  /** Resolves when the run in progress ended, or after `timeoutMillis` (keeping the process alive meanwhile). */
  async whenIdle(timeoutMillis: number): Promise<void> {
    const run = this.running;
    if (run === undefined || !(timeoutMillis > 0)) return;
    let timer: TimerHandle | undefined;
    await Promise.race([run, new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, timeoutMillis, true)))]);
    if (timer !== undefined) this.clock.clearTimeout(timer);
  }

  /** No more runs (shutdown); a run in progress ends after its request. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    if (!(await this.spool.start())) return;
    await this.spool.rescan();
    for (;;) {
      if (this.stopped) return;
      // Oldest first; a batch written ahead of its request in flight is not replayed (yet).
      const seg = this.spool.segments.find((s) => s.inFlight !== true);
      if (seg === undefined || this.spool.diskOrUndefined === undefined) return;
      // The segment being appended to is closed first: its records are replayed, new ones go to a new file.
      if (seg.handle !== undefined) await this.spool.seal();
      if (!(await this.replaySegment(seg))) return;
    }
  }

  /** Replays a segment's records from where it was left; false when the service stopped taking them. */
  private async replaySegment(seg: Segment): Promise<boolean> {
    const disk = this.spool.diskOrUndefined;
    if (disk === undefined) return false;
    let buf: Uint8Array;
    try {
      buf = await disk.fs.readFile(disk.join(this.spool.settings.dir, seg.file));
    } catch (err) {
      // Gone under us (the directory deleted): what it held is lost, counted.
      this.counters.tracesDroppedFromSpool += seg.traces;
      seg.traces = 0;
      this.spool.failReads(err);
      return false;
    }
    for (let pos = seg.replayedTo; ; ) {
      // Dropped to make room: on to the next segment. Stopped: no more.
      if (seg.dropped || this.stopped) return seg.dropped;
      const r = readRecord(buf, pos, disk.crc32);
      if (r.kind === "end") break;
      if (r.kind === "corrupt" || r.kind === "truncated") {
        this.corrupt(seg, r.kind);
        if (r.kind === "truncated") break;
        pos = seg.replayedTo = r.next;
        continue;
      }
      const outcome = await this.send(r.body, r.header.k);
      if (seg.dropped) return true;
      if (outcome.kind === "retry") return false;
      seg.traces = Math.max(0, seg.traces - r.header.n);
      if (outcome.kind === "ok") this.counters.tracesReplayed += r.header.n;
      else {
        const refused = Math.min(r.header.n, outcome.traces ?? r.header.n);
        this.counters.tracesReplayed += r.header.n - refused;
        this.counters.tracesFailed += refused;
        this.logger.error(`spool: ${refused} spooled trace(s) not delivered: ${outcome.message}`);
      }
      pos = seg.replayedTo = r.next;
    }
    // Whatever the count says is left was in damaged records: nothing of it can be replayed.
    if (seg.traces > 0) {
      this.counters.tracesDroppedFromSpool += seg.traces;
      this.logger.warn(
        `spool: ${seg.traces} trace(s) in damaged records of ${seg.file} dropped (${this.counters.tracesDroppedFromSpool} so far; stats().tracesDroppedFromSpool counts them)`,
      );
    }
    seg.traces = 0;
    await this.spool.remove(seg);
    return true;
  }

  private corrupt(seg: Segment, kind: "corrupt" | "truncated"): void {
    const n = ++this.counters.spoolRecordsCorrupt;
    if (isReportableCount(n)) {
      this.logger.warn(`spool: a ${kind === "truncated" ? "truncated" : "damaged"} record in ${seg.file} was skipped (${n} so far; stats().spoolRecordsCorrupt counts them)`);
    }
  }
}
