import { TimeSlicer } from "../time-slicer.js";
import { type Changes, type Loaded, noChanges } from "./journal.js";
import type { IdempotencyRecord, State } from "./store.js";
import { dropTrace, type TraceOrder } from "./trace-order.js";

/** Where the append-only lists of the state ended before a write: what it appends comes after. */
export interface Mark {
  jobs: number;
  testRuns: number;
  /** The last remembered answer (the list is trimmed at its front, so an index would drift). */
  lastAnswer: IdempotencyRecord | undefined;
}

/** What {@link Commits} needs. */
export interface CommitsOptions {
  state: State;
  /** Trace uuids in arrival order; committed traces join it, evicted ones leave it. */
  order: TraceOrder;
  /** Most traces kept; beyond it the oldest are evicted. */
  maxTraces: number;
  /** The `dataFile` journal, and the file's name for the log; in memory when absent. */
  journal: { file: string; loaded: Loaded } | undefined;
  log: (line: string) => void;
  /** A trace changed or was evicted: whatever was derived from it (the viewer's rows) is stale. */
  onStale: (uuid: string) => void;
  /** An applied write was committed (the viewer's live updates hear of it). */
  onWrite: (version: number, traces: number, changed: Iterable<string>) => void;
}

/**
 * The store's commit step, run under the write lock after a route changed the state: the
 * changed traces join the arrival order, the oldest beyond `maxTraces` are evicted, the change
 * is made durable (journal, fsync, compaction when the file has grown), and an applied write
 * is counted and published to the viewer.
 */
export class Commits {
  private writes = 0;
  private evicted = 0;

  constructor(private readonly o: CommitsOptions) {}

  /** Bumped by every acknowledged write: the viewer hears of it through `/_dev/events`. */
  get version(): number {
    return this.writes;
  }

  /** How many traces were evicted by `maxTraces` since the start. */
  get evictedTraces(): number {
    return this.evicted;
  }

  /** Where the state's append-only lists end now; taken before a write, handed to {@link commit}. */
  mark(): Mark {
    const { state } = this.o;
    return { jobs: state.jobs.length, testRuns: state.testRuns.length, lastAnswer: state.idempotency.at(-1) };
  }

  /**
   * Makes what a write changed durable (journal, fsync) and bounded (eviction). `applied` says
   * whether a route handler ran to completion: only then is the write counted and published
   * (a remembered refusal is committed for its answer alone).
   */
  async commit(changed: Changes, before: Mark, slicer: TimeSlicer, applied = false): Promise<void> {
    const { order } = this.o;
    for (const uuid of changed.traces) order.add(uuid);
    changed.evicted.push(...this.evict());
    for (const uuid of [...changed.traces, ...changed.evicted]) this.o.onStale(uuid);
    if (this.o.journal) await this.journal(this.o.journal, changed, before, slicer);
    if (applied) {
      this.writes++;
      this.o.onWrite(this.writes, order.size, changed.traces);
    }
  }

  /** Commits the state as it is (keys created outside a request, the file converted at start). */
  persist(): Promise<void> {
    return this.commit(noChanges(), this.mark(), new TimeSlicer());
  }

  private async journal({ file, loaded }: { file: string; loaded: Loaded }, changed: Changes, before: Mark, slicer: TimeSlicer): Promise<void> {
    const { state, order } = this.o;
    const at = before.lastAnswer ? state.idempotency.lastIndexOf(before.lastAnswer) : -1;
    await loaded.journal.commit(
      state,
      changed,
      { jobs: state.jobs.slice(before.jobs), testRuns: state.testRuns.slice(before.testRuns), idempotency: state.idempotency.slice(at + 1) },
      slicer,
    );
    if (loaded.journal.wantsCompaction) {
      const started = performance.now();
      await loaded.journal.compact(state, order.page(Number.POSITIVE_INFINITY).uuids.reverse(), slicer);
      this.o.log(`compacted ${file} to ${loaded.journal.size} bytes in ${(performance.now() - started).toFixed(0)} ms`);
    }
    // Every change is in the file now: the traces beyond the memory bound can go.
    loaded.traces.trim();
  }

  /** Evicts the oldest traces beyond `maxTraces`; returns their uuids. */
  private evict(): string[] {
    const { state, order, maxTraces } = this.o;
    const gone: string[] = [];
    while (order.size > maxTraces) {
      const uuid = order.oldest()!;
      order.remove(uuid);
      dropTrace(state, uuid);
      gone.push(uuid);
    }
    if (gone.length > 0) {
      this.evicted += gone.length;
      this.o.log(`evicted the ${gone.length} oldest trace(s) beyond --max-traces ${maxTraces}; ${this.evicted} evicted since the start`);
    }
    return gone;
  }
}
