import type { Client } from "../client/client.js";
import { isPlainObject } from "../protocol/schema.js";
import type { MetricCollection } from "../protocol/types.js";
import type { PassCounts } from "./types.js";

/** Verdicts per metric name: how many passed, failed, got none. */
type Tally = Map<string, { passed: number; failed: number; notJudged: number }>;

/**
 * The metric verdicts of the runs, read back where the service offers them: the spec has no
 * read of a test run, but the local emulator keeps its runs at `GET /_dev/test-runs` (each with
 * `status`, and `results: [{ metricsData: [{ metric | name, success }] }]` when it judged).
 * Undefined when they cannot be read: the live platform shows them instead.
 */
export async function readVerdicts(client: Client, runIds: string[], sentPerRun: number[], metrics: string[]): Promise<Tally | undefined> {
  let runs: unknown;
  try {
    runs = await client.http.call("GET", "/_dev/test-runs");
  } catch {
    return undefined;
  }
  if (!Array.isArray(runs)) return undefined;
  const tally: Tally = new Map(metrics.map((m) => [m, { passed: 0, failed: 0, notJudged: 0 }]));
  runIds.forEach((id, r) => {
    const run = runs.find((x) => isPlainObject(x) && x.id === id) as Record<string, unknown> | undefined;
    const verdicts = new Map(metrics.map((m) => [m, 0]));
    for (const result of Array.isArray(run?.results) ? run.results : []) {
      const data = isPlainObject(result) && Array.isArray(result.metricsData) ? result.metricsData : [];
      for (const d of data) {
        if (!isPlainObject(d)) continue;
        const name = typeof d.name === "string" ? d.name : typeof d.metric === "string" ? d.metric : undefined;
        const t = name === undefined ? undefined : tally.get(name);
        if (!t || typeof d.success !== "boolean") continue;
        if (d.success) t.passed++;
        else t.failed++;
        verdicts.set(name!, (verdicts.get(name!) ?? 0) + 1);
      }
    }
    // Every sent case without a verdict of a metric: not judged.
    for (const [name, n] of verdicts) tally.get(name)!.notJudged += Math.max(0, (sentPerRun[r] ?? 0) - n);
  });
  return tally;
}

/** The activated metrics of the collection, by name. */
export function metricNames(collection: MetricCollection): string[] {
  return collection.metricSettings.filter((s) => s.activated !== false).map((s) => s.metric.name);
}

/** Pass counts with the rate: failed tasks count as failed for every metric. */
export function counts(passed: number, failed: number, notJudged: number): PassCounts {
  return { passed, failed, notJudged, passRate: passed + failed === 0 ? null : passed / (passed + failed) };
}
