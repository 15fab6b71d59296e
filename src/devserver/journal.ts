import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { writeJsonSliced } from "./sliced-json.js";
import {
  type DatasetRecord,
  type EvaluationJob,
  emptyState,
  type IdempotencyRecord,
  type PromptRecord,
  reviveDataset,
  revivePrompt,
  reviveState,
  type State,
  type StoredTrace,
  type TestRunRecord,
} from "./store.js";
import type { TimeSlicer } from "./time-slicer.js";

/** The small part of the state, written whole when it changed: keys, metrics, collections, the id counter. */
type Meta = Pick<State, "seq" | "keys" | "metrics" | "collections">;

/** One line of the journal: what one acknowledged write changed. */
export type JournalEntry =
  | { t: "meta"; v: Meta }
  | { t: "trace"; v: StoredTrace }
  | { t: "evict"; v: string }
  | { t: "job"; v: EvaluationJob }
  | { t: "testRun"; v: TestRunRecord }
  | { t: "prompt"; v: PromptRecord }
  | { t: "dataset"; v: DatasetRecord }
  | { t: "idem"; v: IdempotencyRecord };

/** What a write changed, as the routes and the server report it. */
export interface Changes {
  /** Trace uuids created or updated. */
  traces: Set<string>;
  /** Trace uuids evicted. */
  evicted: string[];
  prompts: Set<string>;
  datasets: Set<string>;
}

/** An empty {@link Changes}. */
export function noChanges(): Changes {
  return { traces: new Set(), evicted: [], prompts: new Set(), datasets: new Set() };
}

/** How each entry is replayed onto a state while loading: one line per kind. */
const replay: { [K in JournalEntry["t"]]: (state: State, v: Extract<JournalEntry, { t: K }>["v"], order: string[]) => void } = {
  meta: (state, v) => Object.assign(state, v),
  trace: (state, v, order) => {
    if (!state.traces[v.uuid]) order.push(v.uuid);
    state.traces[v.uuid] = v;
  },
  evict: (state, v) => {
    delete state.traces[v];
  },
  job: (state, v) => state.jobs.push(v),
  testRun: (state, v) => state.testRuns.push(v),
  prompt: (state, v) => {
    state.prompts[v.alias] = revivePrompt(v);
  },
  dataset: (state, v) => {
    state.datasets[v.alias] = reviveDataset(v);
  },
  idem: (state, v) => state.idempotency.push(v),
};

/** The span, thread and user indexes, rebuilt from the traces in arrival order. */
function rebuildIndexes(state: State, order: string[]): string[] {
  const live = order.filter((uuid) => state.traces[uuid] !== undefined);
  for (const uuid of live) {
    const trace = state.traces[uuid]!;
    for (const span of trace.spans) state.spanIndex[span.uuid] = uuid;
    for (const [index, key] of [
      [state.threads, trace.fields.threadId],
      [state.users, trace.fields.userId],
    ] as const) {
      if (typeof key === "string") (index[key] ??= []).push(uuid);
    }
  }
  return live;
}

/** What {@link Journal.open} loaded. */
export interface Loaded {
  state: State;
  /** Trace uuids in arrival order. */
  order: string[];
  journal: Journal;
  /** Whether the file held the former whole-state format (it is rewritten as a journal). */
  converted: boolean;
}

/**
 * The `--data` store: an append-only file of JSON lines, one per change of an acknowledged write
 * (a trace, a job, a prompt ... written whole), fsync'd before the write is answered. On open the
 * lines are replayed; a torn last line (a crash while writing it, never acknowledged) is dropped.
 * When the file grows past `compactFactor` times the live data it is rewritten with one line
 * per live record (a new file, fsync'd, renamed over the old one). A file in the former format
 * (the whole state as one JSON document) is read and rewritten as a journal.
 */
export class Journal {
  private fd: number;
  private bytes: number;
  private lastMeta = "";
  /** The last meta line written or loaded, lastUsed included. */
  private lastMetaLine = "";
  private liveBytes = 0;
  private readonly sizeOf = new Map<string, number>();

  private constructor(
    private readonly file: string,
    private readonly compactFactor: number,
  ) {
    this.fd = openSync(file, "a");
    this.bytes = fstatSync(this.fd).size;
  }

  /** Opens (or creates) the journal at `file` and loads the state it holds. */
  static open(file: string, compactFactor = 3): Loaded {
    let state = emptyState();
    let order: string[] = [];
    let converted = false;
    let lines: string[] = [];
    if (existsSync(file)) {
      const text = readFileSync(file, "utf8");
      const first = text.slice(0, text.indexOf("\n") + 1 || text.length);
      if (first.trim() !== "" && !/^\{"t":"/.test(first)) {
        // The former format: one JSON document holding the whole state.
        state = reviveState(JSON.parse(text) as State);
        order = Object.keys(state.traces);
        converted = true;
      } else {
        lines = text.split("\n");
      }
    }
    const sizes: [string, number][] = [];
    let good = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === "") continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch (err) {
        if (i === lines.length - 1) break; // torn tail: never acknowledged
        throw new Error(`${file}: line ${i + 1} is not valid JSON (${(err as Error).message}); the journal is damaged`);
      }
      (replay[entry.t] as (s: State, v: unknown, o: string[]) => void)(state, entry.v, order);
      sizes.push([entryId(entry), entry.t === "evict" ? 0 : Buffer.byteLength(line) + 1]);
      good += Buffer.byteLength(line) + 1;
    }
    if (!converted) order = rebuildIndexes(state, order);
    // Cut a torn tail off, so that the next line starts on a line of its own.
    if (lines.length > 0 && good < fstatSizeOf(file)) truncateSync(file, good);
    const journal = new Journal(file, compactFactor);
    for (const [id, size] of sizes) journal.count(id, size);
    journal.lastMeta = metaText(state);
    journal.lastMetaLine = `${JSON.stringify({ t: "meta", v: meta(state) })}\n`;
    if (converted || journal.wantsCompaction) journal.rewriteSync(state, order);
    return { state, order, journal, converted };
  }

  /** Every line that describes the live state, oldest trace first. */
  private *liveEntries(state: State, order: string[]): Generator<[string, JournalEntry]> {
    yield ["meta", { t: "meta", v: meta(state) }];
    for (const uuid of order) {
      const trace = state.traces[uuid];
      if (trace) yield [`trace:${uuid}`, { t: "trace", v: trace }];
    }
    for (const v of state.jobs) yield [`job:${v.id}`, { t: "job", v }];
    for (const v of state.testRuns) yield [`run:${v.id}`, { t: "testRun", v }];
    for (const v of Object.values(state.prompts)) yield [`prompt:${v.alias}`, { t: "prompt", v }];
    for (const v of Object.values(state.datasets)) yield [`dataset:${v.alias}`, { t: "dataset", v }];
    for (const v of state.idempotency) yield [`idem:${v.scope} ${v.key}`, { t: "idem", v }];
  }

  private count(id: string, size: number): void {
    this.liveBytes += size - (this.sizeOf.get(id) ?? 0);
    if (size === 0) this.sizeOf.delete(id);
    else this.sizeOf.set(id, size);
  }

  /** Opens the file a rewrite goes to (renamed over the journal when done) and resets the sizes. */
  private beginRewrite(): { tmp: string; fd: number } {
    const tmp = `${this.file}.compact-${process.pid}`;
    const fd = openSync(tmp, "w");
    this.sizeOf.clear();
    this.liveBytes = 0;
    return { tmp, fd };
  }

  /** Rewrites the file with one line per live record (synchronously: used at startup). */
  private rewriteSync(state: State, order: string[]): void {
    const { tmp, fd } = this.beginRewrite();
    let bytes = 0;
    for (const [id, entry] of this.liveEntries(state, order)) {
      const line = `${JSON.stringify(entry)}\n`;
      bytes += writeSync(fd, line);
      this.count(id, Buffer.byteLength(line));
    }
    this.lastMeta = metaText(state);
    this.lastMetaLine = `${JSON.stringify({ t: "meta", v: meta(state) })}\n`;
    this.swap(fd, tmp, bytes);
  }

  /** Rewrites the file with one line per live record, in slices of event-loop time. */
  async compact(state: State, order: string[], slicer: TimeSlicer): Promise<void> {
    const { tmp, fd } = this.beginRewrite();
    let bytes = 0;
    for (const [id, entry] of this.liveEntries(state, order)) {
      let line = "";
      await writeJsonSliced(entry, slicer, (piece) => (line += piece));
      line += "\n";
      bytes += writeSync(fd, line);
      this.count(id, Buffer.byteLength(line));
      if (slicer.due()) await slicer.yield();
    }
    this.lastMeta = metaText(state);
    this.lastMetaLine = `${JSON.stringify({ t: "meta", v: meta(state) })}\n`;
    this.swap(fd, tmp, bytes);
  }

  private swap(fd: number, tmp: string, bytes: number): void {
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
    syncDir(dirname(this.file));
    closeSync(this.fd);
    this.fd = openSync(this.file, "a");
    this.bytes = bytes;
  }

  /**
   * Appends what one write changed and fsyncs: when it resolves the write is durable. The
   * caller serializes writes, so entries reach the file in the order they were applied.
   */
  async commit(state: State, changes: Changes, appended: { jobs: EvaluationJob[]; testRuns: TestRunRecord[]; idempotency: IdempotencyRecord[] }, slicer: TimeSlicer): Promise<void> {
    const entries: [string, JournalEntry][] = [];
    // Keys' lastUsed moves on every request: it alone does not make a line (it is written with
    // the next real change, and at close), so the journal does not grow by the key list per write.
    const m = metaText(state);
    if (m !== this.lastMeta) {
      entries.push(["meta", { t: "meta", v: meta(state) }]);
      this.lastMeta = m;
      this.lastMetaLine = `${JSON.stringify({ t: "meta", v: meta(state) })}\n`;
    }
    for (const uuid of changes.traces) {
      const v = state.traces[uuid];
      if (v) entries.push([`trace:${uuid}`, { t: "trace", v }]);
    }
    for (const uuid of changes.evicted) entries.push([`trace:${uuid}`, { t: "evict", v: uuid }]);
    for (const v of appended.jobs) entries.push([`job:${v.id}`, { t: "job", v }]);
    for (const v of appended.testRuns) entries.push([`run:${v.id}`, { t: "testRun", v }]);
    for (const alias of changes.prompts) {
      const v = state.prompts[alias];
      if (v) entries.push([`prompt:${alias}`, { t: "prompt", v }]);
    }
    for (const alias of changes.datasets) {
      const v = state.datasets[alias];
      if (v) entries.push([`dataset:${alias}`, { t: "dataset", v }]);
    }
    for (const v of appended.idempotency) entries.push([`idem:${v.scope} ${v.key}`, { t: "idem", v }]);
    if (entries.length === 0) return;
    let text = "";
    for (const [id, entry] of entries) {
      let line = "";
      await writeJsonSliced(entry, slicer, (piece) => (line += piece));
      line += "\n";
      text += line;
      this.count(id, entry.t === "evict" ? 0 : Buffer.byteLength(line));
    }
    this.bytes += writeSync(this.fd, text);
    fsyncSync(this.fd);
  }

  /** Whether the file has grown past `compactFactor` times the live data (and past 1 MiB). */
  get wantsCompaction(): boolean {
    return this.bytes > 1024 * 1024 && this.bytes > this.compactFactor * this.liveBytes;
  }

  /** Size of the file in bytes. */
  get size(): number {
    return this.bytes;
  }

  /** Writes the keys' last use (if only that changed) and closes the file. */
  close(state: State): void {
    const line = `${JSON.stringify({ t: "meta", v: meta(state) })}\n`;
    if (line !== this.lastMetaLine) {
      this.bytes += writeSync(this.fd, line);
      fsyncSync(this.fd);
    }
    closeSync(this.fd);
  }
}

/** The record a line describes: a later line with the same id replaces it. */
function entryId(entry: JournalEntry): string {
  switch (entry.t) {
    case "meta":
      return "meta";
    case "trace":
      return `trace:${entry.v.uuid}`;
    case "evict":
      return `trace:${entry.v}`;
    case "job":
      return `job:${entry.v.id}`;
    case "testRun":
      return `run:${entry.v.id}`;
    case "prompt":
      return `prompt:${entry.v.alias}`;
    case "dataset":
      return `dataset:${entry.v.alias}`;
    case "idem":
      return `idem:${entry.v.scope} ${entry.v.key}`;
  }
}

function fstatSizeOf(file: string): number {
  const fd = openSync(file, "r");
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** The meta line's text without the keys' lastUsed, to tell a real change from a key's use. */
function metaText(state: State): string {
  return JSON.stringify(meta(state), (k, v) => (k === "lastUsed" ? undefined : v));
}

function meta(state: State): Meta {
  return { seq: state.seq, keys: state.keys, metrics: state.metrics, collections: state.collections };
}

/** Makes a rename durable; some platforms cannot open a directory, and then it is skipped. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported here (e.g. Windows): the rename is as durable as the platform makes it.
  }
}
