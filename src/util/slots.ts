import { Fifo } from "./fifo.js";

/**
 * At most `concurrency` tasks running at once, the rest waiting in order: the request slots of
 * the exporter. It keeps p-queue's timing, which the exporter's batching was measured with: a
 * task added while a slot is free starts synchronously, inside `add`; a task counts as running
 * until a microtask after it settled; then the next waiting task starts and the freed-slot
 * listeners are told. (It replaces p-queue, of which only this was used: 34 KB compiled at every
 * `import "evaltrace"`, docs/performance.md "Start-up".)
 */
export class Slots {
  private running = 0;
  private readonly waiting = new Fifo<() => void>();
  private idleWaiters: (() => void)[] = [];
  private readonly freedListeners: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  /** Tasks running now. */
  get pending(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get size(): number {
    return this.waiting.length;
  }

  /** Runs `task` once a slot is free; settles as it does. */
  add<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(async () => {
        this.running++;
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        } finally {
          queueMicrotask(() => this.freed());
        }
      });
      this.startAnother();
    });
  }

  /** Resolves once nothing runs or waits. */
  onIdle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Calls `listener` each time a task freed its slot (after the next waiting one started). */
  onFreed(listener: () => void): void {
    this.freedListeners.push(listener);
  }

  private freed(): void {
    this.running--;
    this.startAnother();
    for (const listener of this.freedListeners) listener();
  }

  private startAnother(): void {
    if (this.waiting.length === 0) {
      if (this.running === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
      return;
    }
    if (this.running < this.concurrency) void this.waiting.shift()!();
  }
}
