/**
 * A bounded memory of recent trace ids and one value each, oldest forgotten first: what the SDK
 * must still know about a trace after its record was let go (that the app dropped it, the API
 * key it goes to) for spans and evaluations that come later. Bounded, so a process that runs for
 * months never grows with it.
 */
export class RecentTraces<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  set(traceId: string, value: V): void {
    this.map.delete(traceId);
    this.map.set(traceId, value);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }

  get(traceId: string): V | undefined {
    return this.map.size === 0 ? undefined : this.map.get(traceId);
  }

  /** Forgets a trace's value (a trace routed back to the configured key). */
  delete(traceId: string): void {
    this.map.delete(traceId);
  }

  has(traceId: string): boolean {
    return this.map.size > 0 && this.map.has(traceId);
  }

  /** The ids (or keys) held, oldest first. */
  keysInOrder(): IterableIterator<string> {
    return this.map.keys();
  }

  get size(): number {
    return this.map.size;
  }
}

/** How many dropped traces and per-trace keys are remembered after their records were let go. */
export const MAX_REMEMBERED_TRACES = 10_000;
