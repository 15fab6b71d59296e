/**
 * Runs writes one at a time, in arrival order. A write that yields the event loop (a large
 * trace, an fsync) lets reads through but no other write, so checks and the effect they guard
 * see the same state, and the journal gets entries in the order they were applied.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after every write queued before it. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work, work);
    this.tail = result.catch(() => {});
    return result;
  }

  /** Resolves when every queued write has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => {});
  }
}
