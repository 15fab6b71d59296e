import { setImmediate as nextTurn } from "node:timers/promises";

/** How long one piece of a long request may run before other clients get a turn. @default 10 */
export const DEFAULT_SLICE_MILLIS = 10;

/**
 * Cuts long synchronous work into slices: call {@link TimeSlicer.due} in a loop and, when it is
 * true, `await` {@link TimeSlicer.yield} so that other requests run before the work goes on.
 * Keeps every request's hold on the event loop near `sliceMillis`, whatever its size.
 */
export class TimeSlicer {
  private started = performance.now();
  private checks = 0;

  constructor(private readonly sliceMillis = DEFAULT_SLICE_MILLIS) {}

  /** Whether the current slice is used up (reads the clock every 64 calls). */
  due(): boolean {
    if ((++this.checks & 63) !== 0) return false;
    return performance.now() - this.started >= this.sliceMillis;
  }

  /** Whether the current slice is used up, reading the clock every time: after a piece of work too large to count calls. */
  dueNow(): boolean {
    return performance.now() - this.started >= this.sliceMillis;
  }

  /** Lets the event loop run, then starts a new slice. */
  async yield(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }

  /** Yields when the slice is used up. */
  async tick(): Promise<void> {
    if (this.due()) await this.yield();
  }
}
