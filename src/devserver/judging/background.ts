import type { Judge, JudgeLater, Verdict } from "../context.js";
import type { Commits } from "../store/commit.js";
import { noChanges } from "../store/journal.js";
import type { State } from "../store/store.js";
import type { WriteLock } from "../store/write-lock.js";
import { TimeSlicer } from "../time-slicer.js";

/** The store a verdict is recorded in. */
export interface VerdictStore {
  state: State;
  lock: WriteLock;
  commits: Commits;
  log: (line: string) => void;
}

/** What {@link BackgroundJudging} needs. */
export interface BackgroundJudgingOptions extends VerdictStore {
  /** The endpoint's judge (bounded in concurrency and time by the caller). */
  judge: Judge;
  /** `model at url`, for messages. */
  label: string;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Judging with a judge endpoint, after the write that asked for it was answered: ingest and
 * every other write go on while the judge works. When a verdict is in, it replaces the
 * record's PENDING status, message and results, as a write of its own (under the write lock,
 * in the journal, told to open viewers). A judge that fails or hangs ends as an ERRORED
 * verdict (its calls time out); nothing it does reaches the emulator's requests.
 */
export class BackgroundJudging implements JudgeLater {
  readonly judge: Judge;
  readonly label: string;
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly o: BackgroundJudgingOptions) {
    this.judge = o.judge;
    this.label = o.label;
  }

  /** How many evaluations wait for their verdict. */
  get pending(): number {
    return this.running.size;
  }

  start(kind: "job" | "testRun", id: string, work: () => Promise<Verdict>): void {
    const done = work()
      .catch((err: unknown): Verdict => ({ status: "ERRORED", message: `judging failed: ${errorText(err)}` }))
      .then((verdict) => this.record(kind, id, verdict))
      .catch((err: unknown) => this.o.log(`judge: could not record the verdict on ${kind} ${id}: ${errorText(err)}`))
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** Resolves when every evaluation started so far has its verdict recorded. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Stops recording verdicts (the emulator is closing); calls in flight are aborted by the caller. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private record(kind: "job" | "testRun", id: string, verdict: Verdict): Promise<void> {
    return recordVerdict(this.o, kind, id, verdict, () => this.closed);
  }
}

/**
 * Replaces a record's status, message and results with a verdict, as a write of its own: under
 * the write lock, in the journal, told to open viewers. Skipped once `stopped()` says so.
 */
function recordVerdict(o: VerdictStore, kind: "job" | "testRun", id: string, verdict: Verdict, stopped: () => boolean = () => false): Promise<void> {
  return o.lock.run(async () => {
    if (stopped()) return;
    const { state, commits } = o;
    const list: { id: string; status: string; message?: string; results?: unknown[] }[] = kind === "job" ? state.jobs : state.testRuns;
    const target = list.find((r) => r.id === id);
    // The write that created it failed after asking (nothing was stored): nothing to record.
    if (!target) return;
    target.status = verdict.status;
    target.message = verdict.message;
    target.results = verdict.results;
    if (verdict.message === undefined) delete target.message;
    if (verdict.results === undefined) delete target.results;
    const changed = noChanges();
    (kind === "job" ? changed.jobs : changed.testRuns).add(id);
    await commits.commit(changed, commits.mark(), new TimeSlicer(), true);
    o.log(`judge: ${kind === "job" ? "evaluation" : "test run"} ${id} ${verdict.status}${verdict.message ? ` (${verdict.message})` : ""}`);
  });
}

/**
 * Marks the records an earlier run left PENDING (it stopped before the judge answered) as
 * ERRORED, so that none waits forever; run once at start.
 */
export async function failPending(o: VerdictStore): Promise<void> {
  const stale = [...o.state.jobs.map((r) => ["job", r] as const), ...o.state.testRuns.map((r) => ["testRun", r] as const)].filter(([, r]) => r.status === "PENDING");
  for (const [kind, r] of stale) await recordVerdict(o, kind, r.id, { status: "ERRORED", message: "the emulator stopped before the judge answered; evaluate again" });
}
