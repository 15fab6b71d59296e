import { closeSync, existsSync, fstatSync, fsync, fsyncSync, ftruncateSync, readSync, renameSync, truncateSync, writeSync } from "node:fs";
import { promisify } from "node:util";
import { dirname } from "node:path";
import { APPEND_FLAGS, checkDataFile, openPrivate, READ_FLAGS, readNoFollow, REWRITE_FLAGS, syncDir } from "./data-file.js";
import { KeyFile } from "./key-file.js";
import { DEFAULT_HELD_LIMITS, type HeldLimits, LazyTraces, type TraceSource } from "./lazy-traces.js";
import { writeJsonSliced } from "../sliced-json.js";
import {
  type DatasetRecord,
  type EvaluationJob,
  emptyState,
  type IdempotencyRecord,
  type KeyRecord,
  type PromptRecord,
  reviveDataset,
  revivePrompt,
  reviveState,
  type State,
  type StoredTrace,
  type TestRunRecord,
} from "./store.js";
import type { TimeSlicer } from "../time-slicer.js";
import { dropTrace } from "./trace-order.js";

/**
 * The small part of the state, written whole when it changed: metrics, collections, the id
 * counter. The keys are in the {@link KeyFile} beside the journal; a journal of the previous
 * version has them here (they are moved to the keys file when it is opened).
 */
type Meta = Pick<State, "seq" | "metrics" | "collections"> & { keys?: KeyRecord[] };

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
  /** Ids of evaluation jobs changed after they were added (a judge's verdict came in). */
  jobs: Set<string>;
  /** Ids of test runs changed after they were added (a judge's verdict came in). */
  testRuns: Set<string>;
}

/** An empty {@link Changes}. */
export function noChanges(): Changes {
  return { traces: new Set(), evicted: [], prompts: new Set(), datasets: new Set(), jobs: new Set(), testRuns: new Set() };
}

const NEWLINE = 0x0a;

/** Characters of a journal line gathered before they are written (a larger line is written in pieces). */
const STREAM_CHARS = 1 << 20;

const fsyncAsync = promisify(fsync);

/** Where a trace's latest line is in the file. */
interface Place {
  at: number;
  length: number;
}

/** Where each job and test run is in its list while loading: a later line of one replaces it. */
interface Positions {
  jobs: Map<string, number>;
  testRuns: Map<string, number>;
}

/** Adds a record to its list, or replaces the one with its id (a later version of it). */
function upsert<T extends { id: string }>(list: T[], at: Map<string, number>, v: T): void {
  const i = at.get(v.id);
  if (i === undefined) {
    at.set(v.id, list.length);
    list.push(v);
  } else {
    list[i] = v;
  }
}

/** How each entry other than a trace's is replayed onto a state while loading: one line per kind. */
const replay: { [K in Exclude<JournalEntry["t"], "trace" | "evict">]: (state: State, v: Extract<JournalEntry, { t: K }>["v"], at: Positions) => void } = {
  meta: (state, v) => Object.assign(state, v), // keys included, in a journal of the previous version
  job: (state, v, at) => upsert(state.jobs, at.jobs, v),
  testRun: (state, v, at) => upsert(state.testRuns, at.testRuns, v),
  prompt: (state, v) => {
    state.prompts[v.alias] = revivePrompt(v);
  },
  dataset: (state, v) => {
    state.datasets[v.alias] = reviveDataset(v);
  },
  idem: (state, v) => state.idempotency.push(v),
};

/** Indexes a trace's spans, thread and user (a trace's thread and user never change; its spans only grow). */
function indexTrace(state: State, trace: StoredTrace, isNew: boolean): void {
  for (const span of trace.spans) state.spanIndex[span.uuid] = trace.uuid;
  if (!isNew) return;
  for (const [index, key] of [
    [state.threads, trace.fields.threadId],
    [state.users, trace.fields.userId],
  ] as const) {
    if (typeof key === "string") (index[key] ??= []).push(trace.uuid);
  }
}

/** What {@link Journal.open} loaded. */
export interface Loaded {
  state: State;
  /** Trace uuids in arrival order. */
  order: string[];
  journal: Journal;
  /** The traces (`state.traces` is its record view): recent ones in memory, the others read from the file. */
  traces: LazyTraces;
  /** Whether the file held the former whole-state format (it is rewritten as a journal). */
  converted: boolean;
}

/**
 * The `--data` store: an append-only file of JSON lines, one per change of an acknowledged write
 * (a trace, a job, a prompt ... written whole), fsync'd before the write is answered. On open the
 * lines are replayed; a torn last line (a crash while writing it, never acknowledged) is dropped.
 * When the file grows past `compactFactor` times the live data it is rewritten with one line
 * per live record (a new file, fsync'd, renamed over the old one; trace lines copied as they
 * are). A file in the former format (the whole state as one JSON document) is read and
 * rewritten as a journal.
 *
 * Traces are not all kept in memory: the journal knows where each trace's latest line is, and
 * {@link LazyTraces} reads it back when a trace that is no longer held is asked for. What stays
 * in memory for every trace is its uuid, its place in the file, and the indexes (span, thread,
 * user); everything else of the state (keys, jobs, prompts ...) is small and held whole.
 */
export class Journal implements TraceSource {
  private fd: number;
  /** Opened for reading traces back; reopened when a compaction replaces the file. */
  private readFd: number;
  private bytes: number;
  /** Where each live trace's latest line is. */
  private places = new Map<string, Place>();
  /** Bytes of the live traces' lines (the other live lines are counted in `sizeOf`). */
  private traceBytes = 0;
  private lastMeta = "";
  /** Whether a meta line held the keys (a journal of the previous version). */
  private keysInJournal = false;
  private liveBytes = 0;
  private readonly sizeOf = new Map<string, number>();

  private constructor(
    private readonly file: string,
    private readonly compactFactor: number,
    private readonly keys: KeyFile,
  ) {
    this.fd = openPrivate(file, APPEND_FLAGS);
    this.readFd = openPrivate(file, READ_FLAGS);
    this.bytes = fstatSync(this.fd).size;
  }

  /** A trace read back from its latest line (see {@link TraceSource}). */
  read(uuid: string): StoredTrace | undefined {
    const place = this.places.get(uuid);
    if (!place) return undefined;
    const entry = JSON.parse(this.readLine(this.readFd, place).toString("utf8")) as JournalEntry;
    return entry.t === "trace" ? entry.v : undefined;
  }

  private readLine(fd: number, place: Place): Buffer {
    const buf = Buffer.allocUnsafe(place.length);
    let got = 0;
    while (got < place.length) {
      const n = readSync(fd, buf, got, place.length - got, place.at + got);
      if (n === 0) throw new Error(`${this.file}: ends inside a trace line at byte ${place.at + got}`);
      got += n;
    }
    return buf;
  }

  /** Opens (or creates) the journal at `file` and loads the state it holds. */
  static open(file: string, compactFactor = 3, held: HeldLimits = DEFAULT_HELD_LIMITS): Loaded {
    checkDataFile(file);
    const keyFile = new KeyFile(file);
    const bytes = existsSync(file) ? readNoFollow(file) : Buffer.alloc(0);
    const firstEnd = bytes.indexOf(NEWLINE);
    const first = bytes.toString("utf8", 0, firstEnd === -1 ? bytes.length : firstEnd);
    const former = first.trim() !== "" && !first.startsWith('{"t":"');
    const journal = new Journal(file, compactFactor, keyFile);
    const traces = new LazyTraces(journal, held);
    let state = { ...emptyState(), traces: traces.dict };
    let order: string[] = [];
    if (former) {
      // The former format: one JSON document holding the whole state, converted below.
      const raw = reviveState(JSON.parse(bytes.toString("utf8")) as State);
      state = { ...raw, traces: traces.dict };
      order = Object.keys(raw.traces);
      for (const uuid of order) traces.set(uuid, raw.traces[uuid]!);
    } else {
      order = journal.replayAll(bytes, state, traces);
    }
    // The keys file is newer than keys left in the journal (a move cut short by a crash).
    state.keys = keyFile.load() ?? state.keys;
    journal.lastMeta = metaText(state);
    // Keys still in the journal move to the keys file (durable first), then the journal is
    // rewritten without them: no line of it holds a key any more.
    const move = former || journal.keysInJournal;
    if (move) keyFile.saveSync(state.keys);
    if (move || journal.wantsCompaction) journal.rewriteSync(state, order);
    traces.trim();
    return { state, order, journal, traces, converted: former };
  }

  /**
   * Replays the lines of the file onto `state`, holding no trace (each is read back when asked
   * for); returns the live trace uuids in arrival order. A torn last line is cut off.
   */
  private replayAll(bytes: Buffer, state: State, traces: LazyTraces): string[] {
    let lineNo = 0;
    const positions: Positions = { jobs: new Map(), testRuns: new Map() };
    /** Where the next line starts: every byte before it belongs to whole lines replayed. */
    let at = 0;
    while (at < bytes.length) {
      const nl = bytes.indexOf(NEWLINE, at);
      lineNo++;
      // A last line without its newline was never acknowledged (the newline is written with it).
      if (nl === -1) break;
      if (nl === at) {
        at++;
        continue;
      }
      let entry: JournalEntry;
      try {
        entry = JSON.parse(bytes.toString("utf8", at, nl)) as JournalEntry;
      } catch (err) {
        if (nl + 1 >= bytes.length) break; // torn tail: never acknowledged
        throw new Error(`${this.file}: line ${lineNo} is not valid JSON (${(err as Error).message}); the journal is damaged`);
      }
      if (entry.t === "trace") {
        const isNew = !traces.has(entry.v.uuid);
        traces.add(entry.v.uuid);
        indexTrace(state, entry.v, isNew);
        this.place(entry.v.uuid, { at, length: nl - at });
      } else if (entry.t === "evict") {
        dropTrace(state, entry.v);
        this.place(entry.v, undefined);
      } else {
        this.count(entryId(entry), nl + 1 - at);
        if (entry.t === "meta" && entry.v.keys !== undefined) this.keysInJournal = true;
        (replay[entry.t] as (s: State, v: unknown, at: Positions) => void)(state, entry.v, positions);
      }
      at = nl + 1;
    }
    // Cut a torn tail off, so that the next line starts on a line of its own.
    if (at < this.bytes) {
      truncateSync(this.file, at);
      this.bytes = at;
    }
    return [...traces.uuids()];
  }

  /** Records where a trace's latest line is (undefined: it is gone), and counts its bytes as live. */
  private place(uuid: string, place: Place | undefined): void {
    const before = this.places.get(uuid);
    if (before) this.traceBytes -= before.length + 1;
    if (place) {
      this.places.set(uuid, place);
      this.traceBytes += place.length + 1;
    } else {
      this.places.delete(uuid);
    }
  }

  /**
   * Writes one line per live record to `fd`, oldest trace first, pausing (a `yield`) after each:
   * trace lines are copied from the file as they are (the journal holds every trace's latest
   * version), the rest is small and serialized. Returns the size and the traces' new places.
   */
  private *writeLive(fd: number, state: State, order: string[]): Generator<void, { bytes: number; places: Map<string, Place> }> {
    const places = new Map<string, Place>();
    let bytes = 0;
    const put = (id: string, entry: JournalEntry) => {
      const n = writeSync(fd, `${JSON.stringify(entry)}\n`);
      this.count(id, n);
      bytes += n;
      return n;
    };
    put("meta", { t: "meta", v: meta(state) });
    for (const uuid of order) {
      const place = this.places.get(uuid);
      if (place) {
        const line = this.readLine(this.readFd, place);
        writeSync(fd, line);
        writeSync(fd, "\n");
        places.set(uuid, { at: bytes, length: line.length });
        bytes += line.length + 1;
      } else {
        // Not in the file yet (a store converted from the former format).
        const v = state.traces[uuid];
        if (!v) continue;
        const at = bytes;
        const n = writeSync(fd, `${JSON.stringify({ t: "trace", v })}\n`);
        places.set(uuid, { at, length: n - 1 });
        bytes += n;
      }
      yield;
    }
    for (const v of state.jobs) put(`job:${v.id}`, { t: "job", v });
    for (const v of state.testRuns) put(`run:${v.id}`, { t: "testRun", v });
    for (const v of Object.values(state.prompts)) put(`prompt:${v.alias}`, { t: "prompt", v });
    for (const v of Object.values(state.datasets)) put(`dataset:${v.alias}`, { t: "dataset", v });
    for (const v of state.idempotency) put(`idem:${v.scope} ${v.key}`, { t: "idem", v });
    return { bytes, places };
  }

  private count(id: string, size: number): void {
    this.liveBytes += size - (this.sizeOf.get(id) ?? 0);
    if (size === 0) this.sizeOf.delete(id);
    else this.sizeOf.set(id, size);
  }

  /** Opens the file a rewrite goes to (renamed over the journal when done) and resets the sizes. */
  private beginRewrite(state: State, order: string[]): { tmp: string; fd: number; steps: ReturnType<Journal["writeLive"]> } {
    const tmp = `${this.file}.compact-${process.pid}`;
    const fd = openPrivate(tmp, REWRITE_FLAGS);
    this.sizeOf.clear();
    this.liveBytes = 0;
    return { tmp, fd, steps: this.writeLive(fd, state, order) };
  }

  /** Rewrites the file with one line per live record (synchronously: used at startup). */
  private rewriteSync(state: State, order: string[]): void {
    const { tmp, fd, steps } = this.beginRewrite(state, order);
    let step = steps.next();
    while (!step.done) step = steps.next();
    this.swap(state, fd, tmp, step.value);
  }

  /** Rewrites the file with one line per live record, in slices of event-loop time. */
  async compact(state: State, order: string[], slicer: TimeSlicer): Promise<void> {
    const { tmp, fd, steps } = this.beginRewrite(state, order);
    let step = steps.next();
    while (!step.done) {
      if (slicer.due()) await slicer.yield();
      step = steps.next();
    }
    this.swap(state, fd, tmp, step.value);
  }

  private swap(state: State, fd: number, tmp: string, written: { bytes: number; places: Map<string, Place> }): void {
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, this.file);
    syncDir(dirname(this.file));
    closeSync(this.fd);
    closeSync(this.readFd);
    this.fd = openPrivate(this.file, APPEND_FLAGS);
    this.readFd = openPrivate(this.file, READ_FLAGS);
    this.bytes = written.bytes;
    this.places = new Map();
    this.traceBytes = 0;
    for (const [uuid, place] of written.places) this.place(uuid, place);
    this.lastMeta = metaText(state);
    this.keysInJournal = false;
  }

  /**
   * Appends what one write changed and fsyncs: when it resolves the write is durable. The
   * caller serializes writes, so entries reach the file in the order they were applied.
   */
  async commit(state: State, changes: Changes, appended: { jobs: EvaluationJob[]; testRuns: TestRunRecord[]; idempotency: IdempotencyRecord[] }, slicer: TimeSlicer): Promise<void> {
    const entries: [string, JournalEntry][] = [];
    // The keys go to their own file, durable before the write is answered (their last use alone
    // is written at close).
    await this.keys.save(state.keys);
    const m = metaText(state);
    if (m !== this.lastMeta) {
      entries.push(["meta", { t: "meta", v: meta(state) }]);
      this.lastMeta = m;
    }
    for (const uuid of changes.traces) {
      const v = state.traces[uuid];
      if (v) entries.push([`trace:${uuid}`, { t: "trace", v }]);
    }
    for (const uuid of changes.evicted) entries.push([`trace:${uuid}`, { t: "evict", v: uuid }]);
    for (const v of appended.jobs) entries.push([`job:${v.id}`, { t: "job", v }]);
    for (const v of appended.testRuns) entries.push([`run:${v.id}`, { t: "testRun", v }]);
    // Records changed after they were added: their latest version (a later line replaces an earlier one).
    for (const v of changedRecords(state.jobs, changes.jobs, appended.jobs)) entries.push([`job:${v.id}`, { t: "job", v }]);
    for (const v of changedRecords(state.testRuns, changes.testRuns, appended.testRuns)) entries.push([`run:${v.id}`, { t: "testRun", v }]);
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
    // Small lines are gathered and written with one call; a large line (a trace of many spans)
    // is written in pieces as it is serialized, so that no one call holds the event loop long.
    // A crash in between leaves a torn last line, which loading drops: nothing was acknowledged.
    const start = this.bytes;
    let text = "";
    let textBytes = 0;
    const flushText = () => {
      if (text === "") return;
      this.bytes += writeSync(this.fd, text);
      text = "";
      textBytes = 0;
    };
    const placed: [string, Place][] = [];
    try {
      for (const [id, entry] of entries) {
        const at = this.bytes + textBytes;
        let parts: string[] = [];
        let chars = 0;
        /** Bytes of this line written so far; -1 while it is gathered whole. */
        let streamed = -1;
        const flushParts = () => {
          const n = writeSync(this.fd, parts.join(""));
          this.bytes += n;
          streamed += n;
          parts = [];
          chars = 0;
        };
        await writeJsonSliced(entry, slicer, (piece) => {
          parts.push(piece);
          chars += piece.length;
          if (chars < STREAM_CHARS) return;
          if (streamed === -1) {
            flushText();
            streamed = 0;
          }
          flushParts();
        });
        parts.push("\n");
        let size: number;
        if (streamed === -1) {
          const line = parts.join("");
          size = Buffer.byteLength(line);
          text += line;
          textBytes += size;
        } else {
          flushParts();
          size = streamed;
        }
        if (entry.t === "trace") placed.push([entry.v.uuid, { at, length: size - 1 }]);
        else if (entry.t !== "evict") this.count(id, size);
      }
      flushText();
    } catch (err) {
      // Nothing of a write that failed stays in the file.
      ftruncateSync(this.fd, start);
      this.bytes = start;
      throw err;
    }
    // fsync on the thread pool: the event loop serves other requests while the disk works.
    await fsyncAsync(this.fd);
    for (const [uuid, place] of placed) this.place(uuid, place);
    for (const uuid of changes.evicted) this.place(uuid, undefined);
  }

  /** Whether the file has grown past `compactFactor` times the live data (and past 1 MiB). */
  get wantsCompaction(): boolean {
    return this.bytes > 1024 * 1024 && this.bytes > this.compactFactor * (this.liveBytes + this.traceBytes);
  }

  /** Size of the file in bytes. */
  get size(): number {
    return this.bytes;
  }

  /** Writes the keys' last use (if only that changed) to the keys file and closes the journal. */
  close(state: State): void {
    this.keys.saveSync(state.keys);
    closeSync(this.fd);
    closeSync(this.readFd);
  }
}

/** The records of `list` whose ids are in `ids` and that are not among `appended`, searched from the newest. */
function changedRecords<T extends { id: string }>(list: readonly T[], ids: ReadonlySet<string>, appended: readonly T[]): T[] {
  const out: T[] = [];
  const wanted = new Set([...ids].filter((id) => !appended.some((a) => a.id === id)));
  for (let i = list.length - 1; i >= 0 && wanted.size > 0; i--) {
    const v = list[i]!;
    if (wanted.delete(v.id)) out.push(v);
  }
  return out;
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


/** The meta line's text, to tell whether it changed. */
function metaText(state: State): string {
  return JSON.stringify(meta(state));
}

/** The meta line: never the keys (they are in the keys file). */
function meta(state: State): Meta {
  return { seq: state.seq, metrics: state.metrics, collections: state.collections };
}
