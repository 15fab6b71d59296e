import type { EvaluationJob, StoredTrace } from "../store/store.js";
import { spanCost } from "./prices.js";

/** Pass/fail counts of the evaluation results on a trace and its spans. */
export interface EvalCounts {
  passed: number;
  failed: number;
  /** Jobs without scores (not judged, pending, rejected, errored) and results without one (a judge's error). */
  unscored: number;
}

/** One row of the viewer's trace list: what the list shows and filters on. */
export interface TraceRow {
  uuid: string;
  name: string | null;
  startTime: string | null;
  endTime: string | null;
  durationMillis: number | null;
  spanCount: number;
  inputTokens: number;
  outputTokens: number;
  /** Dollars; null when no span's price is known. */
  costUsd: number | null;
  /** ERRORED when the trace or any span is. */
  status: "SUCCESS" | "ERRORED";
  threadId: string | null;
  userId: string | null;
  tags: string[];
  /** In the list, when the trace has more tags than `tags` holds: how many it has. */
  tagCount?: number;
  environment: string | null;
  /** Span types present. */
  types: string[];
  evals: EvalCounts;
  /** The first 160 characters of the input and output, as text. */
  inputPreview: string;
  outputPreview: string;
  /** The first error message of an errored span, if any. */
  error: string | null;
}

/** A row (its `evals` left at zero: they are counted from the jobs when asked) and the lower-case text that search looks in. */
export interface Cached {
  row: TraceRow;
  haystack: string;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Text of any JSON value, at most `max` characters. */
export function textOf(v: unknown, max: number): string {
  if (v === undefined || v === null) return "";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > max ? s.slice(0, max) : s;
}

/** Milliseconds since the epoch of an ISO time, microseconds kept as a fraction. */
export function isoMillis(iso: unknown): number | null {
  if (typeof iso !== "string") return null;
  const base = Date.parse(iso.replace(/\.\d+/, ""));
  if (Number.isNaN(base)) return null;
  const frac = /\.(\d+)/.exec(iso)?.[1] ?? "";
  return base + Number(`0.${frac || "0"}`) * 1000;
}

/** Pass/fail counts of the evaluation results of `jobs`. */
export function evalCounts(jobs: readonly EvaluationJob[]): EvalCounts {
  const evals: EvalCounts = { passed: 0, failed: 0, unscored: 0 };
  for (const j of jobs) {
    const results = Array.isArray(j.results) ? (j.results as { success?: unknown }[]) : [];
    if (results.length === 0) evals.unscored++;
    for (const r of results) {
      if (r.success === true) evals.passed++;
      else if (r.success === false) evals.failed++;
      else evals.unscored++;
    }
  }
  return evals;
}

/**
 * Rows of the trace list by trace uuid, computed once per trace version and held (a row is small
 * and bounded, unlike its trace): the list and its search stay fast with 100k traces, and do not
 * need the traces themselves in memory. The server calls {@link TraceRows.forget} for every trace
 * a write changed or evicted.
 */
export class TraceRows {
  private readonly rows = new Map<string, Cached>();

  /** The row of a trace, if it was computed and is still current. */
  peek(uuid: string): Cached | undefined {
    return this.rows.get(uuid);
  }

  /** The row of a trace, computed now when it is not held. */
  get(trace: StoredTrace): Cached {
    let hit = this.rows.get(trace.uuid);
    if (!hit) {
      hit = build(trace);
      this.rows.set(trace.uuid, hit);
    }
    return hit;
  }

  /** Drops the row of a trace that changed or is gone. */
  forget(uuid: string): void {
    this.rows.delete(uuid);
  }
}

function build(trace: StoredTrace): Cached {
  const f = trace.fields;
  let inputTokens = 0;
  let outputTokens = 0;
  let cost: number | null = null;
  let error: string | null = null;
  let errored = f.status === "ERRORED";
  const types = new Set<string>();
  const spanNames: string[] = [];
  for (const s of trace.spans) {
    inputTokens += num(s.inputTokenCount);
    outputTokens += num(s.outputTokenCount);
    const c = spanCost(s);
    if (c !== undefined) cost = (cost ?? 0) + c;
    if (s.status === "ERRORED") {
      errored = true;
      error ??= str(s.error) ?? "error";
    }
    if (typeof s.type === "string") types.add(s.type);
    if (spanNames.length < 50) spanNames.push(String(s.name ?? ""));
  }
  const start = isoMillis(f.startTime);
  const end = isoMillis(f.endTime);
  const tags = Array.isArray(f.tags) ? f.tags.filter((t): t is string => typeof t === "string") : [];
  const row: TraceRow = {
    uuid: trace.uuid,
    name: str(f.name),
    startTime: str(f.startTime),
    endTime: str(f.endTime),
    durationMillis: start !== null && end !== null ? end - start : null,
    spanCount: trace.spans.length,
    inputTokens,
    outputTokens,
    costUsd: cost,
    status: errored ? "ERRORED" : "SUCCESS",
    threadId: str(f.threadId),
    userId: str(f.userId),
    tags,
    environment: str(f.environment),
    types: [...types],
    evals: { passed: 0, failed: 0, unscored: 0 },
    inputPreview: textOf(f.input, 160),
    outputPreview: textOf(f.output, 160),
    error,
  };
  const haystack = [trace.uuid, row.name, row.threadId, row.userId, ...tags, textOf(f.input, 2000), textOf(f.output, 2000), ...spanNames]
    .filter(Boolean)
    .join("\n")
    .toLowerCase();
  return { row, haystack };
}
