import { LOWER_IS_BETTER } from "../judging/collection.js";
import type { TestRunRecord } from "../store/store.js";

/** A metric's result on one case of one run, as the comparison shows it. */
export interface CaseScore {
  score: number | null;
  success: boolean | null;
  reason: string | null;
  error?: string;
}

/** How a case changed from the base run to the head run. */
export type CaseChange = "regressed" | "improved" | "unchanged" | "added" | "removed";

/** One metric of one matched case in both runs. */
export interface MetricDelta {
  metric: string;
  base: CaseScore | null;
  head: CaseScore | null;
  /** head score − base score; null unless both have a score. */
  delta: number | null;
  change: CaseChange;
}

/** One case of the comparison: matched by name, or else by input (or scenario, or turns). */
export interface CaseComparison {
  /** What the case was matched by: `name: ...` or its input's text. */
  key: string;
  change: CaseChange;
  baseIndex: number | null;
  headIndex: number | null;
  baseOutput: unknown;
  headOutput: unknown;
  metrics: MetricDelta[];
}

/** A metric's pass rate and mean score in each run. */
export interface MetricSummary {
  metric: string;
  base: { passed: number; scored: number; mean: number | null };
  head: { passed: number; scored: number; mean: number | null };
}

/** Two test runs compared case by case, regressions first. */
export interface RunComparison {
  base: { id: string; identifier: string | null; createdAt: string; status: string; metricCollection: string; cases: number };
  head: { id: string; identifier: string | null; createdAt: string; status: string; metricCollection: string; cases: number };
  counts: Record<CaseChange, number>;
  metrics: MetricSummary[];
  cases: CaseComparison[];
}

/** Scores closer than this are equal (a judge's 0..10 becomes tenths). */
const EPSILON = 1e-9;

/** The order cases are listed in: what got worse first. */
const ORDER: Record<CaseChange, number> = { regressed: 0, improved: 1, removed: 2, added: 3, unchanged: 4 };

type Tc = Record<string, unknown>;

/** What a case is matched by: its `name` when it has one, else its input (scenario, turns). */
function keyOf(tc: Tc): string {
  if (typeof tc.name === "string" && tc.name !== "") return `name: ${tc.name}`;
  const v = tc.input ?? tc.scenario ?? tc.turns;
  return typeof v === "string" ? v : JSON.stringify(v ?? null);
}

/** A run's results of case `i` by metric name. */
function scoresOf(run: TestRunRecord, i: number): Map<string, CaseScore> {
  const entry = (run.results?.[i] ?? {}) as { metricsData?: unknown };
  const out = new Map<string, CaseScore>();
  for (const raw of Array.isArray(entry.metricsData) ? entry.metricsData : []) {
    const r = (raw ?? {}) as { metric?: unknown; score?: unknown; success?: unknown; reason?: unknown; error?: unknown };
    if (typeof r.metric !== "string") continue;
    out.set(r.metric, {
      score: typeof r.score === "number" ? r.score : null,
      success: typeof r.success === "boolean" ? r.success : null,
      reason: typeof r.reason === "string" ? r.reason : null,
      ...(typeof r.error === "string" ? { error: r.error } : {}),
    });
  }
  return out;
}

/** How one metric changed: passed → failed or a worse score is a regression (lower is better for harms). */
function metricChange(metric: string, base: CaseScore | null, head: CaseScore | null): { delta: number | null; change: CaseChange } {
  if (!base) return { delta: null, change: "added" };
  if (!head) return { delta: null, change: "removed" };
  const delta = base.score !== null && head.score !== null ? head.score - base.score : null;
  if (base.success === true && head.success === false) return { delta, change: "regressed" };
  if (base.success === false && head.success === true) return { delta, change: "improved" };
  if (delta === null || Math.abs(delta) < EPSILON) return { delta, change: "unchanged" };
  const better = LOWER_IS_BETTER.has(metric) ? delta < 0 : delta > 0;
  return { delta, change: better ? "improved" : "regressed" };
}

/** The worst score change of a case, for the order within regressions (most negative first). */
function worst(c: CaseComparison): number {
  return Math.min(0, ...c.metrics.filter((m) => m.change === "regressed").map((m) => (m.delta === null ? -1 : LOWER_IS_BETTER.has(m.metric) ? -m.delta : m.delta)));
}

function runHead(run: TestRunRecord): RunComparison["base"] {
  return { id: run.id, identifier: run.identifier ?? null, createdAt: run.createdAt, status: run.status, metricCollection: run.metricCollection, cases: run.testCases.length };
}

function summary(run: TestRunRecord, metric: string): MetricSummary["base"] {
  let passed = 0;
  let scored = 0;
  let sum = 0;
  for (let i = 0; i < run.testCases.length; i++) {
    const s = scoresOf(run, i).get(metric);
    if (!s || s.score === null) continue;
    scored++;
    sum += s.score;
    if (s.success === true) passed++;
  }
  return { passed, scored, mean: scored === 0 ? null : sum / scored };
}

/**
 * Compares two test runs case by case: cases are matched by `name`, or else by input (the
 * scenario or turns of a conversational case), in order when several share one; each metric
 * gets its score delta; a case regressed when a metric went from passed to failed or its score
 * got worse (lower for most metrics, higher for Bias, Toxicity, Hallucination). Regressions
 * come first, the worst first, then improvements, removed and added cases, and the unchanged.
 */
export function compareTestRuns(base: TestRunRecord, head: TestRunRecord): RunComparison {
  const unmatched = new Map<string, number[]>();
  head.testCases.forEach((tc, i) => {
    const key = keyOf((tc ?? {}) as Tc);
    const list = unmatched.get(key);
    if (list) list.push(i);
    else unmatched.set(key, [i]);
  });
  const pairs: [number | null, number | null, string][] = [];
  base.testCases.forEach((tc, i) => {
    const key = keyOf((tc ?? {}) as Tc);
    pairs.push([i, unmatched.get(key)?.shift() ?? null, key]);
  });
  for (const [key, rest] of unmatched) for (const j of rest) pairs.push([null, j, key]);
  pairs.sort((a, b) => (a[1] ?? Number.MAX_SAFE_INTEGER) - (b[1] ?? Number.MAX_SAFE_INTEGER));

  const names = new Set<string>();
  const cases = pairs.map(([bi, hi, key]): CaseComparison => {
    const bs = bi === null ? new Map<string, CaseScore>() : scoresOf(base, bi);
    const hs = hi === null ? new Map<string, CaseScore>() : scoresOf(head, hi);
    const metrics = [...new Set([...hs.keys(), ...bs.keys()])].map((metric) => {
      names.add(metric);
      const b = bi === null ? null : (bs.get(metric) ?? null);
      const h = hi === null ? null : (hs.get(metric) ?? null);
      return { metric, base: b, head: h, ...metricChange(metric, b, h) };
    });
    const change: CaseChange =
      bi === null ? "added" : hi === null ? "removed" : metrics.some((m) => m.change === "regressed") ? "regressed" : metrics.some((m) => m.change === "improved") ? "improved" : "unchanged";
    const output = (run: TestRunRecord, i: number | null) => (i === null ? null : (((run.testCases[i] ?? {}) as Tc).actualOutput ?? null));
    return { key, change, baseIndex: bi, headIndex: hi, baseOutput: output(base, bi), headOutput: output(head, hi), metrics };
  });
  cases.sort((a, b) => ORDER[a.change] - ORDER[b.change] || (a.change === "regressed" ? worst(a) - worst(b) : 0));
  const counts: Record<CaseChange, number> = { regressed: 0, improved: 0, unchanged: 0, added: 0, removed: 0 };
  for (const c of cases) counts[c.change]++;
  return {
    base: runHead(base),
    head: runHead(head),
    counts,
    metrics: [...names].map((metric) => ({ metric, base: summary(base, metric), head: summary(head, metric) })),
    cases,
  };
}
