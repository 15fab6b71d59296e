import type { Clock, TimerHandle } from "../clock.js";

/** Why a request waiting to retry was woken. */
export type WakeReason = "due" | "recovered" | "probe" | "closed";

interface Sleeper {
  wake(reason: WakeReason): void;
  timer: TimerHandle;
  /** When its request last went out: an early wake comes at most once a probe interval. */
  lastAttemptAt: number;
  /** False when the service asked for this wait (`Retry-After`, 429): then it is waited out. */
  early: boolean;
}

/**
 * How the requests of one transport wait to retry while the service is unreachable. Each waits
 * out its own backoff, but at most every `probeIntervalMillis` the longest-waiting one is sent
 * early as a probe (a probe that fails costs it no retry), and the first answer from the
 * service wakes every waiting request at once: after an outage, the queue drains as soon as
 * the service is back rather than at each request's next backoff.
 */
export class RecoveryGate {
  private readonly sleepers = new Set<Sleeper>();
  private probeTimer: TimerHandle | undefined;
  private probing = false;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly probeIntervalMillis: number,
  ) {}

  /**
   * Waits `delayMillis`, or less: until another request got an answer (`recovered`), this one
   * is picked as the probe (`probe`), or the transport closed (`closed`). With `keepAlive`,
   * the wait keeps the process alive (someone awaits the request). With `early` false (the
   * service asked for this wait), only closing cuts it short.
   */
  wait(delayMillis: number, keepAlive: boolean, early = true, lastAttemptAt = this.clock.now()): Promise<WakeReason> {
    if (this.closed) return Promise.resolve("closed");
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        wake: (reason) => {
          if (!this.sleepers.delete(sleeper)) return;
          this.clock.clearTimeout(sleeper.timer);
          resolve(reason);
        },
        timer: undefined,
        early,
        lastAttemptAt,
      };
      this.sleepers.add(sleeper);
      sleeper.timer = this.clock.setTimeout(() => sleeper.wake("due"), delayMillis, keepAlive);
      if (early && delayMillis > this.probeIntervalMillis) this.armProbe();
    });
  }

  /**
   * The service answered a request: every waiting request retries now (an early retry, which
   * costs it no retry if it fails), at most once a probe interval each, so that a service that
   * answers some requests and fails others is not flooded.
   */
  answered(): void {
    if (this.sleepers.size === 0) return;
    const now = this.clock.now();
    for (const s of [...this.sleepers]) if (s.early && now - s.lastAttemptAt >= this.probeIntervalMillis) s.wake("recovered");
  }

  /** A probe's attempt is over (answered or not): the next probe may be armed. */
  probeDone(): void {
    this.probing = false;
    if (this.sleepers.size > 0) this.armProbe();
  }

  /** No more retries: every waiting request gives up now, and later waits end at once. */
  close(): void {
    this.closed = true;
    if (this.probeTimer !== undefined) this.clock.clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    for (const s of [...this.sleepers]) s.wake("closed");
  }

  private armProbe(): void {
    if (this.probeTimer !== undefined || this.probing || this.closed) return;
    // Never kept alive: a waiting request that is awaited keeps the process alive on its own.
    this.probeTimer = this.clock.setTimeout(() => {
      this.probeTimer = undefined;
      for (const s of this.sleepers) {
        if (!s.early) continue;
        this.probing = true;
        s.wake("probe");
        return;
      }
    }, this.probeIntervalMillis);
  }
}
