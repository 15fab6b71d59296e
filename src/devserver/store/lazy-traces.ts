import type { Dict } from "./dict.js";
import type { StoredTrace } from "./store.js";

/** Where a trace that is not held in memory is read from (the `--data` journal). */
export interface TraceSource {
  /** The stored trace, read from the file; undefined when the file holds none. */
  read(uuid: string): StoredTrace | undefined;
}

/** How many traces, and spans in all, stay in memory once written. */
export interface HeldLimits {
  traces: number;
  spans: number;
}

/** The most recent 1,000 traces or 200,000 spans, whichever is reached first. */
export const DEFAULT_HELD_LIMITS: Readonly<HeldLimits> = { traces: 1_000, spans: 200_000 };

/**
 * The traces of a `--data` store: every uuid is known (in arrival order), but only the recently
 * used traces are held in memory; any other is read from the journal when asked for. Exposed as
 * a {@link Dict} ({@link LazyTraces.dict}) so that the routes, the read API and tests use it as
 * they use the in-memory record: `traces[uuid]`, `Object.keys`, `Object.values`, `delete`.
 *
 * A write changes the trace objects it got in place and journals them before it ends, so held
 * traces are forgotten only by {@link LazyTraces.trim}, which the server calls when no write is
 * under way: an object a write holds is never replaced by a fresh copy from the file.
 */
export class LazyTraces {
  /** Live uuids, in arrival order. */
  private readonly live = new Set<string>();
  /** Traces in memory, least recently used first. */
  private readonly held = new Map<string, StoredTrace>();
  /** The record view of the traces. */
  readonly dict: Dict<StoredTrace>;
  /** Traces read from the file since the start (for tests and the log). */
  reads = 0;

  constructor(
    private readonly source: TraceSource,
    private readonly limits: HeldLimits = DEFAULT_HELD_LIMITS,
  ) {
    const target = Object.create(null) as Dict<StoredTrace>;
    this.dict = new Proxy(target, {
      get: (_t, key) => (typeof key === "string" ? this.get(key) : undefined),
      set: (_t, key, value: StoredTrace) => {
        if (typeof key !== "string") return false;
        this.set(key, value);
        return true;
      },
      deleteProperty: (_t, key) => {
        if (typeof key === "string") this.delete(key);
        return true;
      },
      has: (_t, key) => typeof key === "string" && this.live.has(key),
      ownKeys: () => [...this.live],
      // An accessor, so that Object.keys (which asks whether each key is enumerable) reads no trace.
      getOwnPropertyDescriptor: (_t, key) => (typeof key === "string" && this.live.has(key) ? { configurable: true, enumerable: true, get: () => this.get(key) } : undefined),
      defineProperty: () => false,
    });
  }

  /** The trace, from memory or else from the file (then held as the most recently used). */
  get(uuid: string): StoredTrace | undefined {
    const hit = this.held.get(uuid);
    if (hit) {
      this.held.delete(uuid);
      this.held.set(uuid, hit);
      return hit;
    }
    if (!this.live.has(uuid)) return undefined;
    const trace = this.source.read(uuid);
    if (trace) {
      this.reads++;
      this.held.set(uuid, trace);
    }
    return trace;
  }

  /** Stores a trace (held in memory until trimmed; the caller journals it). */
  set(uuid: string, trace: StoredTrace): void {
    this.live.add(uuid);
    this.held.delete(uuid);
    this.held.set(uuid, trace);
  }

  /** Records a stored trace without holding it (it is read when asked for). */
  add(uuid: string): void {
    this.live.add(uuid);
  }

  /** Forgets a trace. */
  delete(uuid: string): void {
    this.live.delete(uuid);
    this.held.delete(uuid);
  }

  /** Whether a trace is stored. */
  has(uuid: string): boolean {
    return this.live.has(uuid);
  }

  /** The stored uuids in arrival order (a trace stored again after its eviction counts as new). */
  uuids(): IterableIterator<string> {
    return this.live.values();
  }

  /** How many traces are stored. */
  get size(): number {
    return this.live.size;
  }

  /** How many traces are in memory. */
  get heldCount(): number {
    return this.held.size;
  }

  /**
   * Lets go of the least recently used traces beyond the limits (they stay in the file). Call
   * only when every change is journaled and no write is under way.
   */
  trim(): void {
    let spans = 0;
    let count = 0;
    const keep = new Set<string>();
    // Newest first: keep what fits, the newest trace always.
    for (const uuid of [...this.held.keys()].reverse()) {
      const n = this.held.get(uuid)!.spans.length + 1;
      if (count > 0 && (count >= this.limits.traces || spans + n > this.limits.spans)) break;
      keep.add(uuid);
      spans += n;
      count++;
    }
    if (keep.size === this.held.size) return;
    for (const uuid of this.held.keys()) if (!keep.has(uuid)) this.held.delete(uuid);
  }
}
