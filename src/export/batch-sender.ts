import { groupByKey, keyRefusals } from "../http/keyed-transport.js";
import { isRetryableStatus } from "../http/retry.js";
import { newIdempotencyKey, type RequestBody, type TransportOutcome } from "../http/transport.js";
import type { Logger } from "../logger.js";
import { encodeRun, type PreparedTrace, recoverTraceTexts, slabBody, traceText } from "../encode/batch-body.js";
import type { JsonBytes } from "../encode/json-bytes.js";
import type { TraceBodies } from "../encode/trace-body.js";
import { markSent } from "../traces/trace-phase.js";
import { appendRequest } from "./append-to-stored.js";
import type { LateUpdates } from "./late-updates.js";
import type { Requests } from "./requests.js";
import type { Settlement } from "./settlement.js";
import type { SlabPool } from "./slab-pool.js";
import type { Spill } from "./spool/spill.js";
import type { SpoolMode } from "./spool/spool-mode.js";
import type { TraceSpool, WrittenAhead } from "./spool/trace-spool.js";
import type { ExporterCounters } from "./types.js";

/** What the sender needs of the exporter. */
export interface BatchSenderParts {
  requests: Requests;
  bodies: TraceBodies;
  settlement: Settlement;
  lateUpdates: LateUpdates;
  counters: ExporterCounters;
  logger: Logger;
  spool: TraceSpool | undefined;
  spiller: Spill | undefined;
  mode: SpoolMode | undefined;
  /** Scrubbed from every payload. */
  apiKey: string | undefined;
  /** Where a batch's slab goes back once its request is over (its body used nowhere else). */
  slabs?: SlabPool;
  maxRequestBytes: number;
  /** A request failed for want of the service (with a spool that takes batches): an outage begins. */
  onOutage: () => void;
}

/**
 * Sends the batches the exporter took as `POST /v1/traces` in the list form and settles their
 * traces by the answer: the single-trace form once the service refuses the list, a split on a
 * 4xx, a 409 ("already exists") answered by appending the trace's spans with `PUT` (append-to-stored.ts). With a spool that takes them, a request is tried once
 * and a batch the service did not answer goes to the spool with its `Idempotency-Key` (an
 * outage begins); in write-ahead mode each batch is written before it is sent.
 */
export class BatchSender {
  /** False once the service refused the list form: one trace per request. */
  private listForm = true;
  /** Traces in requests in flight that are not written ahead: only in memory. */
  private sendingFromMemory = 0;
  /** Write-ahead: traces of batches taken while no request slot was free, waiting for one. */
  private waiting = 0;
  /** Of those, the traces already written. */
  private written = 0;

  constructor(private readonly o: BatchSenderParts) {}

  /** Traces of batches waiting for a request slot (write-ahead): they count in the queue's bound. */
  get waitingForSlot(): number {
    return this.waiting;
  }

  /** Of the traces waiting for a slot, those already written ahead. */
  get waitingWritten(): number {
    return this.written;
  }

  /** Traces in requests in flight that were not written ahead. */
  get onlyInMemory(): number {
    return this.sendingFromMemory;
  }

  /**
   * Sends a batch. `maybeStored`: an earlier request carrying these traces may have been stored
   * although its answer was lost, so a 409 ("already exists") for one of them may mean delivered
   * (the `PUT` of its spans that follows tells).
   */
  async sendBatch(batch: PreparedTrace[], maybeStored = false, slab?: JsonBytes): Promise<void> {
    if (!this.listForm) {
      await Promise.all(batch.map((p) => this.sendSingle(p, maybeStored)));
      return;
    }
    // Traces routed to other projects' keys: one request per key, never mixed.
    const byKey = batch.some((p) => p.rec.apiKey !== undefined) ? groupByKey(batch) : [batch];
    if (byKey.length > 1) {
      await Promise.all(byKey.map((group) => this.sendBatch(group, maybeStored)));
      return;
    }
    const secrets = [this.o.apiKey, batch[0]?.rec.apiKey];
    // As a rule, the batch is its slab's traces: the slab is the body.
    const whole = slab && slabBody(slab, batch, secrets);
    if (whole !== undefined) {
      for (const p of batch) p.slab = undefined;
      if ((await this.postBatch(batch, whole, maybeStored)) && slab !== undefined) this.o.slabs?.give(slab);
      return;
    }
    // Otherwise as many requests as it takes to stay within maxRequestBytes, one after the
    // other, each body made of its traces' bytes just before it goes.
    for (let from = 0; from < batch.length; ) {
      const run = encodeRun(batch, from, { maxBytes: this.o.maxRequestBytes, secrets, writer: this.o.bodies.writer });
      const part = from === 0 && run.to === batch.length ? batch : batch.slice(from, run.to);
      from = run.to;
      await this.postBatch(part, run.body, maybeStored);
    }
  }

  /**
   * Write-ahead, no request slot free: the batch is written now, with the key it will be sent
   * with, and waits for a slot (counted in the queue's bound meanwhile), so that what ended a batch
   * interval ago is on disk however slowly the service answers.
   */
  async writeThenSend(batch: PreparedTrace[], slab: JsonBytes | undefined): Promise<void> {
    let waiting = batch.length;
    let written = 0;
    this.waiting += waiting;
    const release = () => {
      this.waiting -= waiting;
      this.written -= written;
      waiting = written = 0;
    };
    try {
      const body = this.listForm && slab !== undefined ? slabBody(slab, batch, [this.o.apiKey, batch[0]?.rec.apiKey]) : undefined;
      if (body === undefined) {
        await this.o.requests.add(() => {
          release();
          return this.sendBatch(batch, false, slab);
        });
        return;
      }
      for (const p of batch) p.slab = undefined;
      const key = newIdempotencyKey();
      const ahead = await this.o.spiller?.ahead(batch, body, key);
      if (ahead !== undefined) this.written += written = batch.length;
      await this.o.requests.add(() => {
        release();
        return this.postBatch(batch, body, false, { key, ahead });
      });
    } finally {
      release();
    }
  }

  /**
   * Posts a batch's body and settles its traces by the answer. With a spool that takes it, the
   * request is tried once: should the service not answer, the batch is spooled (with this key)
   * and retried from disk; in write-ahead mode it was written before it went. True when the
   * body is of no more use: the service took it whole (a success answer: it read all of it), and
   * no spool was handed it.
   */
  private async postBatch(batch: PreparedTrace[], body: RequestBody, maybeStored: boolean, written?: { key: string; ahead: WrittenAhead | undefined }): Promise<boolean> {
    const key = written?.key ?? newIdempotencyKey();
    const spoolTakes = this.o.spiller !== undefined && this.o.spool?.open === true && batch[0]?.rec.apiKey === undefined;
    const ahead = written !== undefined ? written.ahead : spoolTakes && this.o.spool?.writesAhead === true ? await this.o.spiller?.ahead(batch, body, key) : undefined;
    let outcome: TransportOutcome;
    if (ahead === undefined) this.sendingFromMemory += batch.length;
    try {
      outcome = await this.o.requests.send("POST", "/v1/traces", body, batch[0]?.rec.apiKey, { idempotencyKey: key, ...(spoolTakes ? { maxRetries: 0 } : {}) });
    } finally {
      if (ahead === undefined) this.sendingFromMemory -= batch.length;
    }
    if (this.o.spiller !== undefined && this.o.spool?.open && unanswered(outcome)) {
      // The service did not answer (or asked to wait): an outage, and the batch to the disk with
      // this key (busy or not: the body is in hand, see Spool.write), or left there if it was
      // written ahead.
      this.o.onOutage();
      if (ahead !== undefined) this.o.spiller.keep(batch, ahead, outcome.message);
      else this.o.spiller.spill(batch, { body, key, failure: outcome.message });
      return false;
    }
    // Answered (or no spool would take it): the copy written ahead goes.
    this.o.spiller?.answered(ahead);
    if (outcome.status !== undefined && !unanswered(outcome)) this.o.mode?.answered();
    await this.settleBatch(batch, body, maybeStored, outcome);
    return outcome.ok && !spoolTakes && written === undefined;
  }

  /** Settles a batch by the answer to its request: delivered, resent in another shape or in halves, or given up. */
  private async settleBatch(batch: PreparedTrace[], body: RequestBody, maybeStored: boolean, outcome: TransportOutcome): Promise<void> {
    if (!outcome.ok && outcome.status !== undefined && shapeRefusals.has(outcome.status)) {
      // A service that does not take the list form (the spec allows both): one trace per
      // request, for the rest of the process.
      this.listForm = false;
      this.o.logger.warn(`the service refused the list form of POST /v1/traces (${outcome.message}); sending one trace per request from now on`);
      recoverTraceTexts(batch, body);
      await this.sendBatch(batch, maybeStored || outcome.attempts > 1);
      return;
    }
    const stored = maybeStored || outcome.attempts > 1;
    if (outcome.status === 409 && batch.length === 1) {
      recoverTraceTexts(batch, body);
      await this.appendToStored(batch[0]!, stored);
      return;
    }
    if (outcome.ok) {
      this.o.counters.tracesDelivered += batch.length;
      for (const p of batch) this.delivered(p);
      this.o.spool?.kick();
    } else if (outcome.status !== undefined && outcome.status < 500 && batch.length > 1 && !keyRefusals.has(outcome.status)) {
      // One invalid trace must not take its batch-mates down with it: split and resend.
      recoverTraceTexts(batch, body);
      const half = Math.ceil(batch.length / 2);
      await Promise.all([this.sendBatch(batch.slice(0, half), stored), this.sendBatch(batch.slice(half), stored)]);
    } else {
      this.o.settlement.giveUp(batch, outcome.message);
    }
  }

  /** One trace in the single-trace form of `POST /v1/traces`. */
  private async sendSingle(p: PreparedTrace, maybeStored: boolean): Promise<void> {
    let text: string;
    try {
      text = traceText(p, [this.o.apiKey, p.rec.apiKey]);
    } catch (err) {
      // Given up alone, as in the list form: the batch's other traces go.
      await undefined;
      this.o.settlement.lose([p], err);
      return;
    }
    this.sendingFromMemory++;
    const outcome = await this.o.requests.send("POST", "/v1/traces", text, p.rec.apiKey).finally(() => this.sendingFromMemory--);
    if (outcome.status === 409) {
      await this.appendToStored(p, maybeStored || outcome.attempts > 1);
      return;
    }
    if (outcome.ok) {
      this.o.counters.tracesDelivered++;
      this.delivered(p);
    } else {
      this.o.counters.tracesFailed++;
      this.o.logger.error(`trace ${p.rec.uuid} not delivered: ${outcome.message}`);
      this.o.settlement.fail(p.rec, outcome.message);
    }
  }

  /**
   * A trace the service already has (409): another part of one upstream trace sent before
   * (append-to-stored.ts), or, when `maybeOurs`, this very trace, stored by an attempt whose answer
   * was lost (a retry, with the same Idempotency-Key, may get back the 409 the service gave the
   * first try, so a 409 alone cannot tell). Its spans are appended with `PUT`: a 409 to that
   * means they are stored already. Should the `PUT` fail, a trace that may be ours counts as
   * delivered, as it did before there was a `PUT` to ask.
   */
  private async appendToStored(p: PreparedTrace, maybeOurs: boolean): Promise<void> {
    const { path, body } = appendRequest(traceText(p, [this.o.apiKey, p.rec.apiKey]));
    const outcome = await this.o.requests.send("PUT", path, body, p.rec.apiKey);
    if (outcome.ok || outcome.status === 409 || maybeOurs) {
      if (outcome.ok) this.o.logger.debug(`trace ${p.rec.uuid} was stored already (another request of the same upstream trace): its spans were appended with PUT`);
      this.o.counters.tracesDelivered++;
      this.delivered(p);
    } else {
      this.o.settlement.giveUp([p], outcome.message);
    }
  }

  private delivered(p: PreparedTrace): void {
    const rec = p.rec;
    if (!markSent(rec, p.endTime)) return;
    if (rec.late && !rec.putInFlight) this.o.lateUpdates.start(rec);
    this.o.settlement.settle(rec);
  }
}

/** A failed request the service may take later: no answer, or one that says to retry (408, 429, 5xx). */
function unanswered(outcome: TransportOutcome): outcome is TransportOutcome & { ok: false } {
  return !outcome.ok && (outcome.status === undefined || isRetryableStatus(outcome.status));
}

/** Answers to the list form that mean "not this shape" (the spec allows the single-trace form too). */
const shapeRefusals = new Set([404, 405, 415, 422]);
