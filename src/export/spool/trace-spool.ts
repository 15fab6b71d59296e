import type { Clock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import { type ReplayCounters, Replayer, type ReplaySend } from "./replay.js";
import type { Segment } from "./segments.js";
import { Spool, type SpoolCounters, type SpoolSettings } from "./spool.js";

/** A batch written ahead of its request (write-ahead mode): handed back to {@link TraceSpool.answered} or {@link TraceSpool.keep}. */
export type WrittenAhead = Segment;

/**
 * The durable local spool as the exporter sees it: batches the service cannot take now are
 * written to disk (`write`), and replayed once it answers (`kick`), by this process or, after a
 * crash, the next one with the same directory. Made only when `configure({ spool })` (or
 * EVALTRACE_SPOOL_DIR) asks for it; nothing of `node:fs` is loaded otherwise.
 */
export class TraceSpool {
  private readonly spool: Spool;
  private readonly replayer: Replayer;
  /** A replayed batch was answered (taken or refused for good): the service is there. */
  onAnswered: () => void = () => {};

  constructor(settings: SpoolSettings, counters: SpoolCounters & ReplayCounters, send: ReplaySend, clock: Clock, logger: Logger) {
    this.spool = new Spool(settings, counters, clock, logger);
    const told: ReplaySend = async (body, key) => {
      const outcome = await send(body, key);
      if (outcome.kind !== "retry") this.onAnswered();
      return outcome;
    };
    this.replayer = new Replayer(this.spool, told, counters, clock, logger);
    this.spool.onClaimed = () => this.replayer.kick();
  }

  /** Opens the directory and replays what an earlier process left, in the background. */
  start(): void {
    void this.spool.start().then(() => this.replayer.kick());
  }

  /** Whether it takes batches at all (see {@link Spool.open}). */
  get open(): boolean {
    return this.spool.open;
  }

  /** Whether a batch can be written now (see {@link Spool.accepting}). */
  get accepting(): boolean {
    return this.spool.accepting;
  }

  /** Whether every batch is written before it is sent (`spool.writeAhead`). */
  get writesAhead(): boolean {
    return this.spool.settings.writeAhead;
  }

  /** Writes a batch about to be sent (see {@link Spool.writeAhead}); undefined when it could not. Never rejects. */
  writeAhead(body: Uint8Array, traces: number, key: string): Promise<WrittenAhead | undefined> {
    return this.spool.writeAhead(body, traces, key);
  }

  /** The request of a batch written ahead was answered: its file goes. Never rejects. */
  answered(ahead: WrittenAhead): Promise<void> {
    return this.spool.answered(ahead).catch(() => {});
  }

  /** The request of a batch written ahead failed for want of the service: it stays, spooled (see {@link Spool.keep}). */
  async keep(ahead: WrittenAhead): Promise<boolean> {
    const ok = await this.spool.keep(ahead);
    if (ok) this.replayer.later();
    return ok;
  }

  /** Traces written ahead of their request, in flight now. */
  get tracesWrittenAhead(): number {
    return this.spool.tracesWrittenAhead;
  }

  /** Writes an encoded batch; true once it is on disk (see {@link Spool.write}). Never rejects. */
  async write(body: Uint8Array, traces: number, key: string, held = false): Promise<boolean> {
    const ok = await this.spool.write(body, traces, key, held);
    if (ok) this.replayer.later();
    return ok;
  }

  /** The service answered: replay what is spooled. */
  kick(): void {
    if (this.spool.replayable) this.replayer.kick();
  }

  /** Traces on disk awaiting replay, and their bytes. */
  get traces(): number {
    return this.spool.traces;
  }

  get bytes(): number {
    return this.spool.bytes;
  }

  /** Replays now and waits (at most `timeoutMillis`) for the run to end. */
  async drain(timeoutMillis: number): Promise<void> {
    // What an earlier process left is known once the directory was opened.
    await this.spool.start();
    this.kick();
    await this.replayer.whenIdle(timeoutMillis);
  }

  /** Stops replaying, closes the open segment and lets go of the lock: what is left waits for the next process. */
  async close(): Promise<void> {
    this.replayer.stop();
    await this.spool.close();
  }
}
