/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/**
 * Time as the SDK sees it: wall-clock milliseconds and one-shot timers. Inject a fake one in
 * tests to move batch intervals and retry delays without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `callback` after `delayMillis`. Real timers are `unref()`'d so they never keep a process alive. */
  setTimeout(callback: () => void, delayMillis: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now()` and unref'd `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, delayMillis) {
    const handle = setTimeout(callback, delayMillis);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
