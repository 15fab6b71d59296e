import { HttpError } from "../http-error.js";
import { decodeSegment } from "../json-body.js";
import type { ReadResult } from "./read-api.js";
import type { EvaluationJob, State } from "../store/store.js";
import { TimeSlicer } from "../time-slicer.js";
import type { TraceOrder } from "../store/trace-order.js";
import { compareTestRuns } from "./compare.js";
import { type Cached, evalCounts, isoMillis, type TraceRow, TraceRows } from "./summary.js";

/** Largest page of the viewer's lists. */
export const MAX_VIEW_PAGE = 500;

/** A filter of the trace list: one query parameter, one test of a row (and its search text). */
type RowTest = (row: TraceRow, haystack: string) => boolean;

/** The trace list's filters, by query parameter: a new filter is a new line. */
const filters: Readonly<Record<string, (value: string) => RowTest>> = {
  q: (v) => {
    const needle = v.toLowerCase();
    return (_r, hay) => hay.includes(needle);
  },
  status: (v) => (r) => r.status === v.toUpperCase(),
  type: (v) => (r) => r.types.includes(v),
  user: (v) => (r) => r.userId === v,
  thread: (v) => (r) => r.threadId === v,
  tag: (v) => (r) => r.tags.includes(v),
  environment: (v) => (r) => r.environment === v,
  evals: (v) => (v === "failed" ? (r) => r.evals.failed > 0 : v === "passed" ? (r) => r.evals.passed > 0 && r.evals.failed === 0 : (r) => r.evals.passed + r.evals.failed + r.evals.unscored > 0),
  from: (v) => {
    const t = Date.parse(v);
    if (Number.isNaN(t)) throw new HttpError(400, `from must be a date and time; got "${v.slice(0, 40)}"`);
    return (r) => (isoMillis(r.startTime) ?? 0) >= t;
  },
  to: (v) => {
    const t = Date.parse(v);
    if (Number.isNaN(t)) throw new HttpError(400, `to must be a date and time; got "${v.slice(0, 40)}"`);
    return (r) => (isoMillis(r.startTime) ?? 0) <= t;
  },
};

/** One page of the viewer's trace list. */
export interface TraceListPage {
  rows: TraceRow[];
  /** Traces stored in all. */
  total: number;
  /** Traces looked at for this page (the cost of a selective filter). */
  scanned: number;
  /** Milliseconds the server spent on this page. */
  tookMillis: number;
}

/**
 * The read API of the viewer (`GET /_dev/view/...`), built for large stores: the trace list
 * filtered and paged on the server (`traces?q=&status=&type=&user=&thread=&tag=&environment=
 * &evals=&from=&to=&limit=&cursor=`, next cursor in `X-Next-Cursor`; `traces/:uuid` one row), threads with their turns
 * and evaluations, the values the filters offer (`facets`), and two test runs compared case
 * by case (`compare?base=&head=`).
 */
export class ViewerApi {
  private readonly rows = new TraceRows();
  private jobIndex: { count: number; byTarget: Map<string, EvaluationJob[]>; byTrace: Map<string, EvaluationJob[]> } = { count: -1, byTarget: new Map(), byTrace: new Map() };
  private facetCache: { version: number; value: unknown } | undefined;

  constructor(
    private readonly state: State,
    private readonly order: TraceOrder,
  ) {}

  /** Answers `GET /_dev/view/<what>[/<id>]`; `version` is the store's write counter (for caches). */
  async read(path: string, query: URLSearchParams, version: number): Promise<ReadResult> {
    const [what = "", id, ...more] = path.split("/").filter(Boolean).slice(2).map(decodeSegment);
    if (more.length > 0) throw new HttpError(404, `no viewer endpoint ${path}`);
    if (what === "traces" && id === undefined) return this.traceList(query);
    if (what === "traces") {
      const row = this.rowOf(id!);
      if (!row) throw new HttpError(404, `no trace with uuid ${id}`);
      return { body: row.row };
    }
    if (what === "threads" && id === undefined) return { body: this.threadList() };
    if (what === "threads") return { body: this.thread(id!) };
    if (what === "facets" && id === undefined) return { body: await this.facets(version) };
    if (what === "compare" && id === undefined) return { body: this.compare(query) };
    throw new HttpError(404, `no viewer endpoint ${path}`);
  }

  /** Two test runs compared case by case (`compare?base=<run id>&head=<run id>`), regressions first. */
  private compare(query: URLSearchParams) {
    const run = (name: "base" | "head") => {
      const id = query.get(name);
      if (!id) throw new HttpError(400, `compare needs ${name}=<test run id>`);
      const found = this.state.testRuns.find((r) => r.id === id);
      if (!found) throw new HttpError(404, `no test run with id ${id}`);
      return found;
    };
    return compareTestRuns(run("base"), run("head"));
  }

  /** Forgets the row of a trace a write changed or evicted. */
  forget(uuid: string): void {
    this.rows.forget(uuid);
  }

  /** The job indexes, rebuilt when jobs were added: by target id, and by the trace evaluated (itself or one of its spans). */
  private jobs() {
    if (this.jobIndex.count !== this.state.jobs.length) {
      const byTarget = new Map<string, EvaluationJob[]>();
      const byTrace = new Map<string, EvaluationJob[]>();
      const add = (map: Map<string, EvaluationJob[]>, key: string, j: EvaluationJob) => {
        const list = map.get(key);
        if (list) list.push(j);
        else map.set(key, [j]);
      };
      for (const j of this.state.jobs) {
        add(byTarget, j.targetId, j);
        const trace = j.target === "trace" ? j.targetId : j.target === "span" ? this.state.spanIndex[j.targetId] : undefined;
        if (trace !== undefined) add(byTrace, trace, j);
      }
      this.jobIndex = { count: this.state.jobs.length, byTarget, byTrace };
    }
    return this.jobIndex;
  }

  /** Jobs by the trace, span or thread they evaluate. */
  private jobsOf(targetId: string): EvaluationJob[] {
    return this.jobs().byTarget.get(targetId) ?? [];
  }

  /** The row of a stored trace (its evaluations counted), or undefined when there is none. */
  private rowOf(uuid: string): Cached | undefined {
    let cached = this.rows.peek(uuid);
    if (!cached) {
      if (!Object.hasOwn(this.state.traces, uuid)) return undefined;
      const trace = this.state.traces[uuid];
      if (!trace) return undefined;
      cached = this.rows.get(trace);
    }
    const jobs = this.state.jobs.length === 0 ? undefined : this.jobs().byTrace.get(uuid);
    return jobs ? { row: { ...cached.row, evals: evalCounts(jobs) }, haystack: cached.haystack } : cached;
  }

  private async traceList(query: URLSearchParams): Promise<ReadResult> {
    const started = performance.now();
    const rawLimit = query.get("limit") ?? "50";
    const limit = Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VIEW_PAGE) throw new HttpError(400, `limit must be an integer from 1 to ${MAX_VIEW_PAGE}; got "${rawLimit.slice(0, 40)}"`);
    let cursor = query.get("cursor") || undefined;
    if (cursor !== undefined && !/^\d{1,15}$/.test(cursor)) throw new HttpError(400, `cursor must come from X-Next-Cursor; got "${cursor.slice(0, 40)}"`);
    const tests: RowTest[] = [];
    for (const [name, make] of Object.entries(filters)) {
      const v = query.get(name);
      if (v !== null && v !== "") tests.push(make(v));
    }
    // An exact span uuid finds its trace directly.
    const q = query.get("q")?.trim();
    const spanHit = q ? this.state.spanIndex[q] : undefined;
    const spanRow = spanHit !== undefined && cursor === undefined ? this.rowOf(spanHit) : undefined;
    if (spanRow) {
      return { body: { rows: [spanRow.row], total: this.order.size, scanned: 1, tookMillis: performance.now() - started } satisfies TraceListPage };
    }
    const slicer = new TimeSlicer();
    const rows: TraceRow[] = [];
    let scanned = 0;
    let next: string | undefined;
    // Pages of exactly the rows still wanted: every trace looked at is taken or passed over, so
    // the order's cursor after the last one is exact.
    for (;;) {
      const page = this.order.page(tests.length === 0 ? limit - rows.length : Math.max(limit - rows.length, 256), cursor);
      for (let i = 0; i < page.uuids.length; i++) {
        const uuid = page.uuids[i]!;
        scanned++;
        const hit = this.rowOf(uuid);
        if (hit && tests.every((t) => t(hit.row, hit.haystack))) rows.push(listRow(hit.row));
        if (rows.length === limit) {
          // Stopped inside this page: the next page starts after this trace.
          const rest = i + 1 < page.uuids.length ? this.order.page(i + 1, cursor) : page;
          next = rest.nextCursor;
          break;
        }
        if (slicer.due()) await slicer.yield();
      }
      if (rows.length === limit || page.nextCursor === undefined) {
        next ??= rows.length === limit ? page.nextCursor : undefined;
        break;
      }
      cursor = page.nextCursor;
    }
    const body: TraceListPage = { rows, total: this.order.size, scanned, tookMillis: Math.round((performance.now() - started) * 10) / 10 };
    return { body, nextCursor: next };
  }

  /** Threads, most recently active first, with their turn counts. */
  private threadList() {
    return Object.entries(this.state.threads)
      .map(([id, uuids]) => {
        const rows = uuids.flatMap((u) => this.rowOf(u)?.row ?? []);
        const last = rows.reduce((m, r) => ((r.startTime ?? "") > m ? (r.startTime ?? "") : m), "");
        return {
          id,
          turns: rows.length,
          errored: rows.filter((r) => r.status === "ERRORED").length,
          userId: rows.find((r) => r.userId)?.userId ?? null,
          lastActivity: last || null,
          evaluations: this.jobsOf(id).length,
        };
      })
      .sort((a, b) => String(b.lastActivity).localeCompare(String(a.lastActivity)));
  }

  /** A thread's turns in time order (input, output, the error of an errored turn) and its evaluations. */
  private thread(id: string) {
    const uuids = this.state.threads[id];
    if (!uuids) throw new HttpError(404, `no thread with id ${id}`);
    const turns = uuids
      .map((u) => this.state.traces[u])
      .filter((t) => t !== undefined)
      .map((t) => ({ ...this.rowOf(t.uuid)!.row, input: t.fields.input, output: t.fields.output }))
      .sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));
    return { id, turns, jobs: this.jobsOf(id) };
  }

  /** Values the filters offer: users, tags, environments (recomputed when something was written), from the rows. */
  private async facets(version: number) {
    if (this.facetCache?.version === version) return this.facetCache.value;
    const tags = new Set<string>();
    const environments = new Set<string>();
    const slicer = new TimeSlicer();
    for (let page = this.order.page(Number.POSITIVE_INFINITY), i = 0; i < page.uuids.length; i++) {
      const row = this.rowOf(page.uuids[i]!)?.row;
      if (row) {
        for (const tag of row.tags) if (tags.size < 500) tags.add(tag);
        if (row.environment !== null) environments.add(row.environment);
      }
      if (slicer.due()) await slicer.yield();
    }
    const value = {
      users: Object.keys(this.state.users).slice(0, 500),
      threads: Object.keys(this.state.threads).length,
      tags: [...tags].sort(),
      environments: [...environments].sort(),
      types: ["agent", "llm", "retriever", "tool", "base"],
    };
    this.facetCache = { version, value };
    return value;
  }
}

/** Tags a row of the list carries at most: a trace may have 200,000, and a page of 50 such rows would be tens of megabytes. */
export const LIST_TAGS = 20;

/** A row as the list sends it: at most {@link LIST_TAGS} tags, and then how many there are in `tagCount`. */
function listRow(row: TraceRow): TraceRow {
  return row.tags.length <= LIST_TAGS ? row : { ...row, tags: row.tags.slice(0, LIST_TAGS), tagCount: row.tags.length };
}
