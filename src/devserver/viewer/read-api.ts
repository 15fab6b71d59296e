import { HttpError } from "../http-error.js";
import { decodeSegment } from "../json-body.js";
import { keyView } from "../keys.js";
import type { State } from "../store/store.js";
import { TimeSlicer } from "../time-slicer.js";
import type { TraceOrder } from "../store/trace-order.js";

/** Largest page of `/_dev/traces?limit=`. */
export const MAX_PAGE = 10_000;

/** What a read answers: the JSON body, and the next page's cursor when there is one. */
export interface ReadResult {
  body: unknown;
  nextCursor?: string;
}

/** The readers of `/_dev/<what>` that take no id: one line each. */
const collections: Record<string, (state: State) => unknown> = {
  threads: (s) => s.threads,
  users: (s) => s.users,
  jobs: (s) => s.jobs,
  "test-runs": (s) => s.testRuns,
  prompts: (s) => s.prompts,
  datasets: (s) => s.datasets,
  metrics: (s) => s.metrics,
  "metric-collections": (s) => s.collections,
  keys: (s) => s.keys.map((k) => ({ scope: k.scope, ...keyView(k) })),
};

function pageLimit(query: URLSearchParams): number | undefined {
  const raw = query.get("limit");
  if (raw === null) return undefined;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new HttpError(400, `limit must be an integer from 1 to ${MAX_PAGE}; got "${raw.slice(0, 40)}"`);
  return limit;
}

function pageCursor(query: URLSearchParams): string | undefined {
  const raw = query.get("cursor");
  if (raw === null || raw === "") return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, `cursor must be a value from the X-Next-Cursor header of a previous page; got "${raw.slice(0, 40)}"`);
  return raw;
}

/**
 * The read API for tests, the demo and the viewer (`GET /_dev/...`): what was stored.
 * `/_dev/traces` lists trace summaries newest first; with `?limit=N` one page of them, the
 * cursor of the next page in the `X-Next-Cursor` header (pass it back as `?cursor=`).
 */
export async function devRead(state: State, order: TraceOrder, path: string, query: URLSearchParams, slicer = new TimeSlicer()): Promise<ReadResult> {
  const parts = path.split("/").filter(Boolean).slice(1).map(decodeSegment);
  if (parts.length > 2) throw new HttpError(404, `no read endpoint ${path}`);
  const [what = "", id] = parts;
  const summary = (uuid: string) => {
    const tr = state.traces[uuid]!;
    return { uuid, ...tr.fields, spanCount: tr.spans.length, receivedAt: tr.receivedAt };
  };
  /** Summaries in slices of event-loop time: with `--data`, traces not in memory are read from the file. */
  const summaries = async (uuids: readonly string[]) => {
    const out: unknown[] = [];
    for (const uuid of uuids) {
      // A trace evicted by a write while this read yielded is left out.
      if (Object.hasOwn(state.traces, uuid)) out.push(summary(uuid));
      if (slicer.due()) await slicer.yield();
    }
    return out;
  };
  if (what === "traces") {
    if (id !== undefined) {
      const tr = state.traces[id];
      if (!tr) throw new HttpError(404, `no trace with uuid ${id}`);
      const targets = new Set<string>([id]);
      for (const s of tr.spans) targets.add(s.uuid);
      return { body: { ...summary(id), spans: tr.spans, jobs: state.jobs.filter((j) => targets.has(j.targetId)) } };
    }
    const page = order.page(pageLimit(query) ?? Number.POSITIVE_INFINITY, pageCursor(query));
    return { body: await summaries(page.uuids), nextCursor: page.nextCursor };
  }
  if (what === "threads" && id !== undefined) return { body: await summaries(state.threads[id] ?? []) };
  const read = Object.hasOwn(collections, what) ? collections[what] : undefined;
  if (!read || id !== undefined) throw new HttpError(404, `no read endpoint ${path}`);
  return { body: read(state) };
}
