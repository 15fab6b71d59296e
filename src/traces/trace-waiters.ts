import { recordOf } from "./trace-record.js";
import type { TraceView } from "./trace-view.js";

/** Wakes everyone waiting on a trace (something about it was sent, given up, or changed). */
export function notify(rec: TraceView): void {
  const waiters = recordOf(rec).waiters;
  if (waiters) for (const wake of [...waiters]) wake();
}

/** Resolves when `done()` is true, re-checked each time the trace changes. */
export function waitFor(rec: TraceView, done: () => boolean): Promise<void> {
  if (done()) return Promise.resolve();
  const record = recordOf(rec);
  return new Promise((resolve) => {
    const check = () => {
      if (done()) {
        record.waiters?.delete(check);
        resolve();
      }
    };
    (record.waiters ??= new Set()).add(check);
  });
}
