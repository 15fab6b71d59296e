import type { Changes } from "./store/journal.js";
import type { CollectionRecord, MetricRecord, State } from "./store/store.js";
import type { TimeSlicer } from "./time-slicer.js";

/** What a judge is asked: one metric over one test case (or conversation). */
export interface JudgeInput {
  metric: Pick<MetricRecord, "name" | "multiTurn" | "criteria" | "evaluationSteps" | "evaluationParams">;
  testCase: unknown;
  target: "test-run" | "trace" | "span" | "thread";
  chatbotRole?: string;
}

/** A judge function: the emulator judges nothing unless one is given. */
export type Judge = (input: JudgeInput) => { score: number; reason?: string } | Promise<{ score: number; reason?: string }>;

/** The subscription plan the emulator pretends to be on; dataset versions need `team`. */
export type Plan = "free" | "team";

/** What a route handler gets. */
export interface RouteContext {
  state: State;
  now: number;
  plan: Plan;
  region: string;
  baseUrl: string;
  judge: Judge | undefined;
  params: Record<string, string>;
  /** The request's query parameters (reads take theirs there). */
  query: URLSearchParams;
  body: unknown;
  /** Where a route records which traces, prompts and datasets it created or changed (for the store). */
  changed: Changes;
  /** Digest of the whole body (canonical JSON), computed at most once per request. */
  bodyDigest?: () => Promise<string>;
  /** Cuts long work into slices of event-loop time: loops over spans tick it. */
  slicer: TimeSlicer;
  /** Whether off-spec fields and types are rejected (`--strict`) or accepted as the live service does. */
  strict: boolean;
  /** Notes a relaxed rule for the request log (lenient mode); repeats within a request are dropped. */
  note: (line: string) => void;
}

/** What a route handler returns. */
export interface RouteResult {
  status?: number;
  body: Record<string, unknown>;
}

export type Handler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;

/**
 * Metrics where a lower score is better (they measure a harm): they pass when the score is at
 * most the threshold, and in strict mode only at 0. Default metrics named in wire-format.
 */
export const LOWER_IS_BETTER: ReadonlySet<string> = new Set(["Bias", "Toxicity", "Hallucination"]);

/** Whether a score passes a metric setting. */
export function passes(metric: string, score: number, threshold: number, strictMode: boolean): boolean {
  if (LOWER_IS_BETTER.has(metric)) return strictMode ? score <= 0 : score <= threshold;
  return strictMode ? score >= 1 : score >= threshold;
}

export const NOT_JUDGED = "the local emulator does not judge: pass a `judge` function to startDevServer to score metrics";

/**
 * Runs the judge over the activated metrics of a collection; without a judge, says so.
 */
export async function judgeCollection(
  ctx: RouteContext,
  collection: CollectionRecord,
  testCase: unknown,
  target: JudgeInput["target"],
  chatbotRole?: string,
): Promise<{ status: "NOT_JUDGED" | "COMPLETED" | "ERRORED"; message?: string; results?: unknown[] }> {
  if (!ctx.judge) return { status: "NOT_JUDGED", message: NOT_JUDGED };
  const results: unknown[] = [];
  try {
    for (const setting of collection.metricSettings.filter((s) => s.activated)) {
      const metric = ctx.state.metrics.find((m) => m.name === setting.metric.name && m.multiTurn === collection.multiTurn);
      if (!metric) continue;
      const { name, multiTurn, criteria, evaluationSteps, evaluationParams } = metric;
      const verdict = await ctx.judge({ metric: { name, multiTurn, criteria, evaluationSteps, evaluationParams }, testCase, target, chatbotRole });
      results.push({
        metric: name,
        threshold: setting.threshold,
        score: verdict.score,
        reason: setting.includeReason ? verdict.reason ?? null : null,
        success: passes(name, verdict.score, setting.threshold, setting.strictMode),
        strictMode: setting.strictMode,
      });
    }
  } catch (err) {
    return { status: "ERRORED", message: `judge threw: ${err instanceof Error ? err.message : String(err)}`, results };
  }
  return { status: "COMPLETED", results };
}
