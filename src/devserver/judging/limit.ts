import type { Judge } from "../context.js";

/** Bounds of {@link limitJudge}. */
export interface JudgeLimits {
  /** Judge calls in flight at once. */
  concurrency: number;
  /** Calls waiting for a free slot; one more fails at once (the queue is full). */
  maxWaiting: number;
}

/**
 * A judge that makes at most `concurrency` calls at once; the others wait in arrival order, and
 * beyond `maxWaiting` of them a call fails at once with an error that says so (memory stays
 * bounded however much is sent to judge).
 */
export function limitJudge(judge: Judge, limits: JudgeLimits): Judge {
  let running = 0;
  const waiting: (() => void)[] = [];
  /** A finished call hands its slot to the first waiter, or frees it. */
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (input) => {
    if (running < limits.concurrency) running++;
    else if (waiting.length >= limits.maxWaiting) throw new Error(`the judge queue is full (${limits.maxWaiting} calls waiting): not judged`);
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await judge(input);
    } finally {
      release();
    }
  };
}
