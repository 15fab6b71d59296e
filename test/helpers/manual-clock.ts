import type { Clock, TimerHandle } from "../../src/clock.js";

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

/** A clock that moves only when told to: timers fire in `advance`, never by themselves. */
export class ManualClock implements Clock {
  private time: number;
  private nextId = 1;
  private timers: Timer[] = [];

  constructor(start = Date.parse("2026-01-01T00:00:00Z")) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMillis: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, delayMillis), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Delays (from now) of the timers waiting, shortest first. */
  pendingDelays(): number[] {
    return this.timers.map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  /** Moves time forward, firing every timer that falls due on the way, in order. */
  async advance(millis: number): Promise<void> {
    const target = this.time + millis;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.callback();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

/** Lets pending promise callbacks and immediates run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

/**
 * Waits for a condition that real I/O will make true (a request arriving), checking after each
 * turn of the event loop; fails after `maxMillis` of wall-clock time (well inside the test
 * timeout: a loaded machine slows the I/O down, it never makes a broken condition true).
 */
export async function waitUntil(condition: () => boolean, what = "condition", maxMillis = 20_000): Promise<void> {
  const deadline = performance.now() + maxMillis;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`waitUntil: ${what} never became true within ${maxMillis} ms`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

/**
 * A clock whose timers up to `horizonMillis` fire on the next turn of the event loop, however
 * long they asked for, while `now()` moves by the delay: retries and batch intervals happen in
 * order at no wall-clock cost. Longer timers (a flush deadline) never fire.
 */
export class InstantClock implements Clock {
  private time = Date.parse("2026-01-01T00:00:00Z");
  /** Every delay asked for, in order. */
  readonly delays: number[] = [];

  constructor(private readonly horizonMillis = 60_000) {}

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMillis: number): TimerHandle {
    this.delays.push(delayMillis);
    if (delayMillis > this.horizonMillis) return undefined;
    const handle = setImmediate(() => {
      this.time += delayMillis;
      callback();
    });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    if (handle !== undefined) clearImmediate(handle as NodeJS.Immediate);
  }
}
