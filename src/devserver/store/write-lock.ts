/**
 * Runs writes one at a time, in arrival order. A write that yields the event loop (a large
 * trace, an fsync) lets reads through but no other write, so checks and the effect they guard
 * see the same state, and the journal gets entries in the order they were applied.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();
  private running = 0;

  /** Whether a write is running now (it may hold objects of the state that it is changing). */
  get busy(): boolean {
    return this.running > 0;
  }

  /** Runs `work` after every write queued before it. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const step = async () => {
      this.running++;
      try {
        return await work();
      } finally {
        this.running--;
      }
    };
    const result = this.tail.then(step, step);
    this.tail = result.catch(() => {});
    return result;
  }

  /** Resolves when every queued write has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => {});
  }
}
