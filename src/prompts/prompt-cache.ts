import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";

/** How pulled prompts are cached; per client (`new Client({ promptCache })`). */
export interface PromptCacheOptions {
  /**
   * How long a pulled prompt is served without asking the service again. After that it is
   * still served at once while one background request refreshes it. `0` asks the service on
   * every pull (the last good copy is still served while the service is down).
   * @default 60000
   */
  ttlMillis?: number;
  /** Most prompts (alias and selector pairs) kept; the least recently used go first. @default 500 */
  maxEntries?: number;
}

/** Counters of a client's prompt cache (`client.prompts.cacheStats()`). */
export interface PromptCacheStats {
  /** Pulls answered from a fresh copy. */
  hits: number;
  /** Pulls answered from a copy older than its TTL, while a refresh was started or under way. */
  staleServed: number;
  /** Pulls that had to ask the service and wait (no copy, or a TTL of 0). */
  misses: number;
  /** Background refreshes started. */
  refreshes: number;
  /** Requests to the service that failed (background refreshes and waited pulls). */
  failures: number;
  /** Waited pulls answered with the last good copy because the service was down. */
  servedLastGood: number;
  /** Copies dropped to stay within `maxEntries`. */
  evictions: number;
  /** Copies held now. */
  size: number;
}

interface Entry<V> {
  value: V;
  fetchedAt: number;
  refreshing: boolean;
  /** After a failed refresh, no new one starts before this time. */
  retryAt: number;
}

/** After a failed background refresh, the next one waits this long (or the TTL, if shorter). */
const RETRY_AFTER_FAILURE_MILLIS = 5_000;

/**
 * An in-memory cache of pulled prompts keyed by alias and selector: fresh copies within the
 * TTL, stale copies served while one background refresh runs, and the last good copy when the
 * service cannot be reached (logged once per outage and key, counted). Bounded by `maxEntries`
 * (least recently used first out); concurrent first pulls of one key share one request.
 */
export class PromptCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly pending = new Map<string, Promise<V>>();
  private readonly down = new Set<string>();
  private readonly counts = { hits: 0, staleServed: 0, misses: 0, refreshes: 0, failures: 0, servedLastGood: 0, evictions: 0 };

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly maxEntries: number,
  ) {}

  /**
   * The value for `key`: fresh from the cache, stale from the cache (starting a background
   * `fetch(true)`), or fetched now (`fetch(false)`). A fetch that fails with `isOutage(err)` true falls back to the last
   * good copy when there is one; any other failure of a waited fetch is thrown.
   */
  async get(key: string, ttlMillis: number, describe: string, fetch: (inBackground: boolean) => Promise<V>, isOutage: (err: unknown) => boolean): Promise<V> {
    const entry = this.entries.get(key);
    const now = this.clock.now();
    if (entry && ttlMillis > 0) {
      this.touch(key, entry);
      if (now - entry.fetchedAt < ttlMillis) {
        this.counts.hits++;
        return entry.value;
      }
      this.counts.staleServed++;
      if (!entry.refreshing && now >= entry.retryAt) this.refresh(key, entry, ttlMillis, describe, fetch);
      return entry.value;
    }
    this.counts.misses++;
    const shared = entry ? undefined : this.pending.get(key);
    if (shared) return shared;
    const request = fetch(false).then(
      (value) => this.store(key, value, describe),
      (err: unknown) => {
        this.counts.failures++;
        const last = this.entries.get(key);
        if (!last || !isOutage(err)) throw err;
        this.counts.servedLastGood++;
        this.wentDown(key, describe, last, err);
        return last.value;
      },
    );
    if (entry) return request;
    this.pending.set(key, request);
    try {
      return await request;
    } finally {
      this.pending.delete(key);
    }
  }

  /** Counters and size. */
  stats(): PromptCacheStats {
    return { ...this.counts, size: this.entries.size };
  }

  /** Drops every copy (counters stay). */
  clear(): void {
    this.entries.clear();
    this.down.clear();
  }

  private refresh(key: string, entry: Entry<V>, ttlMillis: number, describe: string, fetch: (inBackground: boolean) => Promise<V>): void {
    entry.refreshing = true;
    this.counts.refreshes++;
    let request: Promise<V>;
    try {
      request = fetch(true);
    } catch (err) {
      request = Promise.reject(err);
    }
    request.then(
      (value) => {
        entry.refreshing = false;
        this.store(key, value, describe);
      },
      (err: unknown) => {
        entry.refreshing = false;
        entry.retryAt = this.clock.now() + Math.min(ttlMillis, RETRY_AFTER_FAILURE_MILLIS);
        this.counts.failures++;
        this.wentDown(key, describe, entry, err);
      },
    );
  }

  private store(key: string, value: V, describe: string): V {
    this.entries.delete(key);
    this.entries.set(key, { value, fetchedAt: this.clock.now(), refreshing: false, retryAt: 0 });
    if (this.down.delete(key)) this.logger.info(`evaltrace: prompt ${describe} pulled again; the cached copy is current`);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.down.delete(oldest);
      this.counts.evictions++;
    }
    return value;
  }

  private touch(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  /** Logs the first failure of an outage for `key`; later ones are only counted. */
  private wentDown(key: string, describe: string, entry: Entry<V>, err: unknown): void {
    if (this.down.has(key)) return;
    this.down.add(key);
    const reason = err instanceof Error ? err.message : String(err);
    this.logger.warn(`evaltrace: prompt ${describe} could not be pulled (${reason}); serving the copy pulled at ${new Date(entry.fetchedAt).toISOString()} until the service answers`);
  }
}
