/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * Time as the SDK sees it: wall-clock milliseconds and one-shot timers. Inject a fake one in
 * tests to move batch intervals and retry delays without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `callback` after `delayMillis`. Real timers are `unref()`'d, so that background work
   * never keeps a process alive, unless `keepAlive` is true: the timer belongs to work that
   * someone awaits (a `flush()`, a client call), and the process must live until it fires.
   */
  setTimeout(callback: () => void, delayMillis: number, keepAlive?: boolean): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now()` and `setTimeout`, unref'd unless kept alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, delayMillis, keepAlive = false) {
    const handle = setTimeout(callback, delayMillis);
    if (!keepAlive) (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
