import type { Client } from "../client/client.js";
import { isPlainObject } from "../protocol/schema.js";
import type { MetricCollection } from "../protocol/types.js";
import type { MetricVerdict, PassCounts } from "./types.js";

/** Why a metric has no verdict, by what the service said. */
export const NOT_JUDGED_REASONS = {
  /** The emulator records NOT_JUDGED when it has no judge. */
  noJudge: "no judge configured (the emulator without a judge answers NOT_JUDGED)",
  /** The live service's API returns a test run's id only. */
  noResults: "the service returns no verdicts through its API (see them on the platform)",
  pending: "the judge had not answered when the run was read",
  missing: "the service kept no verdict for this case",
} as const;

/**
 * The metric verdicts of the sent cases (in the order sent), read back where the service offers
 * them: the spec has no read of a test run, but the local emulator keeps its runs at
 * `GET /_dev/test-runs` (each with `status`, `message`, and `results: [{ metricsData: [{ metric |
 * name, score, threshold, success, reason, error }] }]` in the order of its test cases). A run
 * ERRORED without results (the judge crashed) errs every case with its message. Undefined when
 * the runs cannot be read: the live platform shows them instead.
 */
export async function readVerdicts(client: Client, runIds: string[], sentPerRun: number[], metrics: string[], waitMillis = JUDGE_WAIT_MILLIS): Promise<MetricVerdict[][] | undefined> {
  const runs = await judgedRuns(client, runIds, waitMillis);
  if (!runs) return undefined;
  return runIds.flatMap((id, r) => {
    const run = runs.find((x) => isPlainObject(x) && x.id === id);
    return readVerdictsOf(isPlainObject(run) ? run : {}, sentPerRun[r] ?? 0, metrics);
  });
}

/** The key of a sent test case's `additionalMetadata` that keeps the app's scorers' verdicts (for the platform, and a later `--baseline`). */
export const SCORES_KEY = "evaltrace.scores";

/**
 * The verdicts of the `count` cases of one emulator test run: of `metrics` (else every metric its
 * results name), then of the scorers kept in each test case's `additionalMetadata`.
 */
export function readVerdictsOf(run: Record<string, unknown>, count: number, metrics?: readonly string[]): MetricVerdict[][] {
  const results = Array.isArray(run.results) ? run.results : undefined;
  const testCases = Array.isArray(run.testCases) ? run.testCases : [];
  const status = run.status;
  const message = typeof run.message === "string" ? run.message : undefined;
  return Array.from({ length: count }, (_, i) => {
    const result = results?.[i];
    const data = isPlainObject(result) && Array.isArray(result.metricsData) ? result.metricsData.filter(isPlainObject) : [];
    const nameOf = (x: Record<string, unknown>) => String(typeof x.name === "string" ? x.name : x.metric);
    const service = (metrics ?? data.map(nameOf)).map((name) => {
      const d = data.find((x) => nameOf(x) === name);
      if (d) return fromData(name, d);
      if (status === "ERRORED" && !results) return errored(name, message ?? "the judge failed");
      const why = status === "NOT_JUDGED" ? NOT_JUDGED_REASONS.noJudge : status === "PENDING" ? NOT_JUDGED_REASONS.pending : NOT_JUDGED_REASONS.missing;
      return notJudged(name, why, "service");
    });
    if (metrics) return service;
    const tc = testCases[i];
    const kept = isPlainObject(tc) && isPlainObject(tc.additionalMetadata) ? tc.additionalMetadata[SCORES_KEY] : undefined;
    const scored = Array.isArray(kept) ? kept.filter(isPlainObject).map((d) => ({ ...fromData(String(d.name), d), source: "scorer" as const })) : [];
    return [...service, ...scored];
  });
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === "string" ? v : null);

/** One entry of the emulator's `metricsData` as a verdict. */
function fromData(name: string, d: Record<string, unknown>): MetricVerdict {
  const base = { name, score: num(d.score), threshold: num(d.threshold), reason: str(d.reason), source: "service" as const };
  if (typeof d.success === "boolean") return { ...base, state: d.success ? "passed" : "failed", success: d.success, error: null };
  const error = str(d.error);
  if (error !== null) return { ...base, state: "errored", success: null, error };
  return { ...base, state: "notJudged", success: null, error: null, notJudgedReason: NOT_JUDGED_REASONS.missing };
}

/** An errored verdict: the judge or scorer failed with `error`. */
export function errored(name: string, error: string, source: MetricVerdict["source"] = "service"): MetricVerdict {
  return { name, state: "errored", score: null, threshold: null, success: null, reason: null, error, source };
}

/** A verdict the service did not give, and why. */
export function notJudged(name: string, why: string, source: MetricVerdict["source"]): MetricVerdict {
  return { name, state: "notJudged", score: null, threshold: null, success: null, reason: null, error: null, notJudgedReason: why, source };
}

/** How long to wait for an emulator that judges in the background (`--judge-url`) to finish a run's cases. */
export const JUDGE_WAIT_MILLIS = 300_000;
const POLL_MILLIS = 250;

/**
 * The emulator's test runs once none of `runIds` is still `PENDING` (a judge endpoint scores
 * them in the background), or as they stand after `waitMillis`: cases still unjudged then count
 * as not judged. Undefined when the runs cannot be read.
 */
async function judgedRuns(client: Client, runIds: string[], waitMillis: number): Promise<unknown[] | undefined> {
  const deadline = Date.now() + waitMillis;
  for (;;) {
    let runs: unknown;
    try {
      runs = await client.http.call("GET", "/_dev/test-runs");
    } catch {
      return undefined;
    }
    if (!Array.isArray(runs)) return undefined;
    const pending = runs.some((x) => isPlainObject(x) && runIds.includes(x.id as string) && x.status === "PENDING");
    if (!pending || Date.now() >= deadline) return runs;
    await new Promise((r) => setTimeout(r, POLL_MILLIS));
  }
}

/** The activated metrics of the collection, by name. */
export function metricNames(collection: MetricCollection): string[] {
  return collection.metricSettings.filter((s) => s.activated !== false).map((s) => s.metric.name);
}

/** Pass counts with the rate: failed tasks count as failed for every metric; errored and not-judged cases are out of the rate. */
export function counts(passed: number, failed: number, notJudged: number, erroredCount = 0): PassCounts {
  return { passed, failed, errored: erroredCount, notJudged, passRate: passed + failed === 0 ? null : passed / (passed + failed) };
}
