import type { TraceRecord } from "./trace-record.js";

/**
 * The records with work not yet done (for `flush()`), linked through the records themselves.
 * A `Set` of them would do, but a set that gains and loses one member per trace reallocates its
 * table every few hundred traces, and each table lives long enough to be promoted out of V8's
 * young generation: the bulk of what a busy exporter made the old generation collect.
 */
export class BusyList implements Iterable<TraceRecord> {
  private head: TraceRecord | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds a record that is not in the list. */
  add(rec: TraceRecord): void {
    rec.busyPrev = undefined;
    rec.busyNext = this.head;
    if (this.head !== undefined) this.head.busyPrev = rec;
    this.head = rec;
    this.count++;
  }

  /** Removes a record that is in the list. */
  delete(rec: TraceRecord): void {
    const prev = rec.busyPrev;
    const next = rec.busyNext;
    if (prev !== undefined) prev.busyNext = next;
    else this.head = next;
    if (next !== undefined) next.busyPrev = prev;
    // Unlinked, so that a record someone still holds does not keep its old neighbours alive.
    rec.busyPrev = undefined;
    rec.busyNext = undefined;
    this.count--;
  }

  /** The records, newest first, in an array of their own (what a flush takes; no iterator). */
  toArray(): TraceRecord[] {
    const out = new Array<TraceRecord>(this.count);
    let i = 0;
    for (let rec = this.head; rec !== undefined; rec = rec.busyNext) out[i++] = rec;
    return out;
  }

  /** The records, newest first. The one being visited may be deleted meanwhile; no other may. */
  *[Symbol.iterator](): IterableIterator<TraceRecord> {
    for (let rec = this.head; rec !== undefined; ) {
      const next = rec.busyNext;
      yield rec;
      rec = next;
    }
  }
}
