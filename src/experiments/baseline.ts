import type { Client } from "../client/client.js";
import { isPlainObject } from "../protocol/schema.js";
import { readVerdictsOf } from "./results.js";
import type { ExperimentCaseResult, ExperimentGolden, MetricVerdict } from "./types.js";

/** An earlier test run's verdicts, by case key (see {@link caseKey}). */
export interface Baseline {
  runId: string;
  identifier: string | undefined;
  cases: Map<string, MetricVerdict[][]>;
}

/** How a case of the run compares with the baseline on one metric. */
export interface CaseChange {
  key: string;
  metric: string;
  before: { passed: boolean; score: number | null };
  after: { passed: boolean; score: number | null };
}

/** The comparison of a run with its baseline. */
export interface Comparison {
  regressions: CaseChange[];
  improvements: CaseChange[];
  /** Case and metric pairs judged in both runs with the same outcome. */
  unchanged: number;
  /** Cases of the run the baseline does not have. */
  added: number;
}

/**
 * What matches a case across runs: its name (`name`, else `additionalMetadata.name`), else its
 * input (single-turn) or scenario (multi-turn).
 */
export function caseKey(c: ExperimentGolden | Record<string, unknown>): string {
  const o = c as Record<string, unknown>;
  const meta = isPlainObject(o.additionalMetadata) ? o.additionalMetadata : {};
  const name = typeof o.name === "string" ? o.name : typeof meta.name === "string" ? meta.name : undefined;
  return name ?? String(o.input ?? o.scenario ?? "");
}

/**
 * The test run `ref` names, by id, else the latest run of that identifier, with its verdicts:
 * the collection's (`metricsData`) and the scorers' (kept in each test case's
 * `additionalMetadata["evaltrace.scores"]`). Read from the emulator's `GET /_dev/test-runs`;
 * undefined when there is no such run, a string saying why when the runs cannot be read.
 */
export async function readBaseline(client: Client, ref: string): Promise<Baseline | undefined | string> {
  let runs: unknown;
  try {
    runs = await client.http.call("GET", "/_dev/test-runs");
  } catch {
    runs = undefined;
  }
  if (!Array.isArray(runs)) return "the service returns no test runs through its API (a baseline is read from the emulator)";
  const records = runs.filter(isPlainObject);
  const run = records.find((r) => r.id === ref) ?? records.filter((r) => r.identifier === ref).at(-1);
  if (!run) return undefined;
  const testCases = Array.isArray(run.testCases) ? run.testCases : [];
  const verdicts = readVerdictsOf(run, testCases.length);
  const cases = new Map<string, MetricVerdict[][]>();
  testCases.forEach((tc, i) => {
    if (!isPlainObject(tc)) return;
    const key = caseKey(tc);
    cases.set(key, [...(cases.get(key) ?? []), verdicts[i] ?? []]);
  });
  return { runId: String(run.id), identifier: typeof run.identifier === "string" ? run.identifier : undefined, cases };
}

/** A case's outcome on a metric over its trials: passed when every judged trial passed; the scores' mean. Undefined when none was judged. */
function outcome(trials: readonly (readonly MetricVerdict[])[], metric: string): { passed: boolean; score: number | null } | undefined {
  const judged = trials.flatMap((t) => t.filter((m) => m.name === metric && (m.state === "passed" || m.state === "failed")));
  if (judged.length === 0) return undefined;
  const scores = judged.map((m) => m.score).filter((s): s is number => s !== null);
  return { passed: judged.every((m) => m.state === "passed"), score: scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length };
}

/**
 * Compares each case of the run with the baseline's case of the same key, metric by metric: a
 * regression passed before and fails now, an improvement the reverse. A failed task fails
 * every metric. Metrics errored or not judged on either side are left out.
 */
export function compareWithBaseline(baseline: Baseline, results: readonly ExperimentCaseResult[]): Comparison {
  const byKey = new Map<string, ExperimentCaseResult[]>();
  for (const r of results) if (!r.aborted) byKey.set(caseKey(r.golden), [...(byKey.get(caseKey(r.golden)) ?? []), r]);
  const out: Comparison = { regressions: [], improvements: [], unchanged: 0, added: 0 };
  for (const [key, runs] of byKey) {
    const before = baseline.cases.get(key);
    if (!before) {
      out.added++;
      continue;
    }
    const metrics = new Set(runs.flatMap((r) => r.metrics.map((m) => m.name)));
    for (const metric of metrics) {
      const was = outcome(before, metric);
      const failedTask = runs.some((r) => r.error !== undefined);
      const now = failedTask ? { passed: false, score: null } : outcome(runs.map((r) => r.metrics), metric);
      if (!was || !now) continue;
      const change = { key, metric, before: was, after: now };
      if (was.passed && !now.passed) out.regressions.push(change);
      else if (!was.passed && now.passed) out.improvements.push(change);
      else out.unchanged++;
    }
  }
  return out;
}

const score = (s: number | null) => (s === null ? "-" : s.toFixed(2));
const side = (o: { passed: boolean; score: number | null }) => `${o.passed ? "passed" : "failed"} ${score(o.score)}`;

/** The comparison as lines: a head line with the counts, then each regression and improvement. */
export function formatComparison(baseline: Baseline, c: Comparison): string {
  const name = baseline.identifier && baseline.identifier !== baseline.runId ? `${baseline.identifier} (${baseline.runId})` : baseline.runId;
  const head = `baseline ${name}: ${c.regressions.length} regression(s), ${c.improvements.length} improvement(s), ${c.unchanged} unchanged, ${c.added} case(s) not in the baseline`;
  const line = (kind: string, ch: CaseChange) => `${kind}: ${JSON.stringify(ch.key.length > 80 ? `${ch.key.slice(0, 80)}...` : ch.key)} ${ch.metric} ${side(ch.before)} -> ${side(ch.after)}`;
  return `${[head, ...c.regressions.map((ch) => line("regression", ch)), ...c.improvements.map((ch) => line("improvement", ch))].join("\n")}\n`;
}
