import type { Logger } from "../../logger.js";
import { encodeRun, type PreparedTrace, slabBody } from "../../encode/batch-body.js";
import type { JsonBytes } from "../../encode/json-bytes.js";
import type { TraceBodies } from "../../encode/trace-body.js";
import { newIdempotencyKey, type RequestBody } from "../../http/transport.js";
import type { Settlement } from "../settlement.js";
import type { ExporterCounters } from "../types.js";
import type { TraceSpool, WrittenAhead } from "./trace-spool.js";

/** Where a spilled batch's bytes come from: the slab it was taken into, or the body (and key) a failed request sent. */
export interface SpillSource {
  slab?: JsonBytes | undefined;
  body?: RequestBody;
  key?: string;
  /** Given when the batch failed to go out: should the spool not take it, it is given up with this reason (else dropped). */
  failure?: string;
}

/** What a spill needs of the exporter. */
export interface SpillParts {
  spool: TraceSpool;
  settlement: Settlement;
  bodies: TraceBodies;
  counters: ExporterCounters;
  logger: Logger;
  /** The configured API key: scrubbed from the bytes, as from a request's. */
  apiKey: string | undefined;
  maxRequestBytes: number;
}

/**
 * Hands batches from the exporter to the disk spool, already encoded: the slab a batch was
 * taken into is written as it is (the body its request would have had), and a request that
 * failed is written with its body and its `Idempotency-Key`. Traces routed to another project's
 * key are never spooled (no key is written to disk): they are handled as without a spool. The
 * traces stay busy until written; if writing fails they are dropped (or given up), counted.
 */
export class Spill {
  /** Batches being written: a shutdown waits for them. */
  private readonly writing = new Set<Promise<void>>();
  /** Uuids written since {@link watch} was called: a shutdown's result lists them as spooled. */
  private watched: Set<string> | undefined;
  /** Traces handed to the spool and not yet on disk (they are still only in memory). */
  private unwritten = 0;

  constructor(private readonly o: SpillParts) {}

  /**
   * Writes a batch to the spool (see the class). Never throws: should encoding or writing fail,
   * the batch (already taken from the queue) is given up, counted and logged.
   */
  spill(batch: PreparedTrace[], from: SpillSource): void {
    try {
      this.spillOrThrow(batch, from);
    } catch (err) {
      this.lose(batch, err);
    }
  }

  private spillOrThrow(batch: PreparedTrace[], from: SpillSource): void {
    if (batch.some((p) => p.rec.apiKey !== undefined)) {
      this.lost(batch, from, "traces routed to another API key are not spooled");
      return;
    }
    for (const { part, body, key } of this.runs(batch, from)) {
      const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
      this.track(
        part,
        this.o.spool.write(bytes, part.length, key, from.body !== undefined).then((ok) => {
          if (!ok) return this.lost(part, from, "the spool could not take them");
          this.spooled(part);
        }),
      );
    }
  }

  /**
   * Write-ahead: writes a batch about to be sent with `key`; resolves with what to hand back
   * once it was answered ({@link answered}) or not ({@link keep}), or undefined when it was not
   * written (routed to another key, or the spool could not take it: it is sent as without
   * write-ahead). Never rejects.
   */
  async ahead(batch: PreparedTrace[], body: RequestBody, key: string): Promise<WrittenAhead | undefined> {
    try {
      if (batch.some((p) => p.rec.apiKey !== undefined)) return undefined;
      const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
      return await this.o.spool.writeAhead(bytes, batch.length, key);
    } catch {
      return undefined;
    }
  }

  /** The request of a batch written ahead was answered: its copy on disk goes. */
  answered(ahead: WrittenAhead | undefined): void {
    if (ahead !== undefined) void this.o.spool.answered(ahead);
  }

  /**
   * The request of a batch written ahead failed for want of the service: the copy on disk is
   * the batch's now, replayed with its key; should it be gone, the batch is given up with `failure`.
   */
  keep(batch: PreparedTrace[], ahead: WrittenAhead, failure: string): void {
    this.track(
      batch,
      this.o.spool.keep(ahead).then((ok) => {
        if (!ok) return this.o.settlement.giveUp(batch, failure);
        this.spooled(batch);
      }),
    );
  }

  /** Traces handed to the spool and not yet on disk. */
  get tracesUnwritten(): number {
    return this.unwritten;
  }

  private spooled(part: PreparedTrace[]): void {
    this.o.settlement.spooled(part);
    if (this.watched !== undefined) for (const p of part) this.watched.add(p.rec.uuid);
  }

  /** Counts a write under way until it settles; whatever fails in it settles the part, never escapes. */
  private track(part: PreparedTrace[], done: Promise<void>): void {
    this.unwritten += part.length;
    const settled = done
      .catch((err: unknown) => this.lose(part, err))
      .finally(() => {
        this.unwritten -= part.length;
      });
    this.writing.add(settled);
    void settled.finally(() => this.writing.delete(settled));
  }

  /** Gives up traces a spill failed on (those not already settled): counted and logged, never thrown. */
  private lose(part: PreparedTrace[], err: unknown): void {
    try {
      this.o.logger.error(`spool: could not write ${part.length} trace(s) to the spool: ${String(err)}`);
      this.o.settlement.lose(part, err);
    } catch {
      // lose() only counts, logs and settles: nothing is left to do.
    }
  }

  /** From now on, remembers the uuids spooled (a shutdown's result names them). */
  watch(): Set<string> {
    this.watched ??= new Set();
    return this.watched;
  }

  /** Resolves once every batch handed over so far was written (or given up). */
  async whenWritten(): Promise<void> {
    while (this.writing.size > 0) await Promise.all([...this.writing]);
  }

  /** The batch as bodies: its slab whole when it can be, else runs within maxRequestBytes. */
  private runs(batch: PreparedTrace[], from: SpillSource): { part: PreparedTrace[]; body: RequestBody; key: string }[] {
    const secrets = [this.o.apiKey];
    const whole = from.body ?? (from.slab && slabBody(from.slab, batch, secrets));
    if (whole !== undefined) {
      for (const p of batch) p.slab = undefined;
      return [{ part: batch, body: whole, key: from.key ?? newIdempotencyKey() }];
    }
    const runs: { part: PreparedTrace[]; body: RequestBody; key: string }[] = [];
    for (let at = 0; at < batch.length; ) {
      const run = encodeRun(batch, at, { maxBytes: this.o.maxRequestBytes, secrets, writer: this.o.bodies.writer });
      runs.push({ part: batch.slice(at, run.to), body: run.body, key: newIdempotencyKey() });
      at = run.to;
    }
    return runs;
  }

  private lost(part: PreparedTrace[], from: SpillSource, why: string): void {
    if (from.failure !== undefined) {
      this.o.settlement.giveUp(part, from.failure);
      return;
    }
    this.o.counters.tracesDropped += part.length;
    this.o.logger.warn(`${part.length} trace(s) dropped: the export queue was full and ${why}`);
    for (const p of part) this.o.settlement.fail(p.rec, `the export queue was full and ${why}`);
  }
}
