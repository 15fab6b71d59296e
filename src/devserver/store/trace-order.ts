import type { State } from "./store.js";

/** One page of traces, newest first, and the cursor of the next page (absent on the last). */
export interface TracePage {
  uuids: string[];
  nextCursor?: string;
}

/**
 * The stored traces in the order they arrived: evicts the oldest beyond a bound and pages the
 * newest first. A cursor is an arrival number, so pages stay stable while traces arrive.
 */
export class TraceOrder {
  /** Arrival number -> uuid; evicted entries are `undefined` until `head` passes them. */
  private readonly arrivals: (string | undefined)[] = [];
  private head = 0;
  private readonly arrivalOf = new Map<string, number>();
  /** Arrival number of `arrivals[0]`: cursors stay valid when the evicted prefix is dropped. */
  private base = 0;

  /** Records a new trace as the newest. */
  add(uuid: string): void {
    if (this.arrivalOf.has(uuid)) return;
    this.arrivalOf.set(uuid, this.arrivals.length);
    this.arrivals.push(uuid);
  }

  /** Forgets a trace (removed by eviction or by a journal entry). */
  remove(uuid: string): void {
    const at = this.arrivalOf.get(uuid);
    if (at === undefined) return;
    this.arrivalOf.delete(uuid);
    this.arrivals[at] = undefined;
    while (this.head < this.arrivals.length && this.arrivals[this.head] === undefined) this.head++;
    // Drop the evicted prefix now and then so the array does not grow forever.
    if (this.head > 4096 && this.head * 2 > this.arrivals.length) {
      const shift = this.head;
      this.arrivals.splice(0, shift);
      this.head = 0;
      for (const [u, n] of this.arrivalOf) this.arrivalOf.set(u, n - shift);
      this.base += shift;
    }
  }

  /** How many traces are held. */
  get size(): number {
    return this.arrivalOf.size;
  }

  /** The oldest trace, if any. */
  oldest(): string | undefined {
    return this.arrivals[this.head];
  }

  /** Up to `limit` traces older than `cursor` (all when absent), newest first. */
  page(limit: number, cursor?: string): TracePage {
    const before = cursor === undefined ? this.base + this.arrivals.length : Number(cursor);
    const uuids: string[] = [];
    let i = Math.min(before - this.base, this.arrivals.length) - 1;
    for (; i >= this.head && uuids.length < limit; i--) {
      const uuid = this.arrivals[i];
      if (uuid !== undefined) uuids.push(uuid);
    }
    while (i >= this.head && this.arrivals[i] === undefined) i--;
    return i >= this.head ? { uuids, nextCursor: String(this.base + i + 1) } : { uuids };
  }
}

/** Removes a trace and every index entry that names it; returns whether it existed. */
export function dropTrace(state: State, uuid: string): boolean {
  const trace = state.traces[uuid];
  if (!trace) return false;
  delete state.traces[uuid];
  for (const span of trace.spans) if (state.spanIndex[span.uuid] === uuid) delete state.spanIndex[span.uuid];
  for (const [index, key] of [
    [state.threads, trace.fields.threadId],
    [state.users, trace.fields.userId],
  ] as const) {
    if (typeof key !== "string") continue;
    const list = index[key]?.filter((u) => u !== uuid);
    if (!list || list.length === 0) delete index[key];
    else index[key] = list;
  }
  return true;
}
