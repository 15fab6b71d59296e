import { counts } from "./results.js";
import type { ExperimentCaseResult, GoldenSummary, MetricSummary, MetricVerdict } from "./types.js";

const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const min = (xs: number[]) => (xs.length === 0 ? null : Math.min(...xs));
const max = (xs: number[]) => (xs.length === 0 ? null : Math.max(...xs));
/** Population standard deviation of the trials' scores (0 for a single trial). */
const stdDev = (xs: number[]) => {
  const m = mean(xs);
  return m === null ? null : Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length);
};

/** The verdicts of metric `name` in the results. */
const verdictsOf = (results: readonly ExperimentCaseResult[], name: string) =>
  results.flatMap((r) => r.metrics.filter((m) => m.name === name));

/**
 * One row per metric: its verdicts counted, a task that failed (not aborted) counted as failed
 * for every metric, the scores' mean and min, and each distinct error and not-judged reason once.
 */
export function metricSummaries(results: readonly ExperimentCaseResult[], names: readonly { name: string; source: MetricVerdict["source"] }[]): MetricSummary[] {
  const failedTasks = results.filter((r) => r.error !== undefined && !r.aborted).length;
  return names.map(({ name, source }) => {
    const vs = verdictsOf(results, name);
    const n = (state: MetricVerdict["state"]) => vs.filter((v) => v.state === state).length;
    const scores = vs.map((v) => v.score).filter((s): s is number => s !== null);
    return {
      name,
      source,
      ...counts(n("passed"), n("failed") + failedTasks, n("notJudged"), n("errored")),
      meanScore: mean(scores),
      minScore: min(scores),
      errors: [...new Set(vs.map((v) => v.error).filter((e): e is string => e !== null))],
      notJudgedReasons: [...new Set(vs.map((v) => v.notJudgedReason).filter((e): e is string => e !== undefined))],
    };
  });
}

/** Each golden over its trials: per metric, the mean, min, max and spread of its scores. */
export function goldenSummaries(results: readonly ExperimentCaseResult[], goldenCount: number, names: readonly string[]): GoldenSummary[] {
  return Array.from({ length: goldenCount }, (_, goldenIndex) => {
    const runs = results.filter((r) => r.goldenIndex === goldenIndex);
    return {
      goldenIndex,
      trials: runs.length,
      failedTasks: runs.filter((r) => r.error !== undefined).length,
      metrics: names.map((name) => {
        const vs = verdictsOf(runs, name);
        const scores = vs.map((v) => v.score).filter((s): s is number => s !== null);
        return {
          name,
          meanScore: mean(scores),
          minScore: min(scores),
          maxScore: max(scores),
          stdDev: stdDev(scores),
          passed: vs.filter((v) => v.state === "passed").length,
          failed: vs.filter((v) => v.state === "failed").length,
          errored: vs.filter((v) => v.state === "errored").length,
        };
      }),
    };
  });
}
