import type { Judge, JudgeInput, MetricResult, RouteContext, Verdict } from "../context.js";
import type { CollectionRecord, State } from "../store/store.js";

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

/** The message of an evaluation recorded without a judge. */
export const NOT_JUDGED =
  "the local emulator does not judge: start it with --judge-url URL --judge-model NAME (startDevServer({ judgeUrl, judgeModel })) or pass a `judge` function to startDevServer to score metrics";

/** What {@link judgeCollection} is told besides the collection and the test case. */
export interface JudgeCall {
  state: State;
  judge: Judge;
  target: JudgeInput["target"];
  chatbotRole?: string;
  /** Judge only custom metrics (a judge endpoint has no definition of the default ones). */
  customOnly: boolean;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Runs the judge over the activated metrics of a collection, one metric after the other: a
 * metric the judge fails on gets a result with its `error` (and the status ERRORED, the first
 * error as its message), the others are still judged.
 */
export async function judgeCollection(call: JudgeCall, collection: CollectionRecord, testCase: unknown): Promise<Verdict> {
  const results: MetricResult[] = [];
  let firstError: string | undefined;
  for (const setting of collection.metricSettings.filter((s) => s.activated)) {
    const metric = call.state.metrics.find((m) => m.name === setting.metric.name && m.multiTurn === collection.multiTurn);
    if (!metric) continue;
    const { name, multiTurn, criteria, evaluationSteps, evaluationParams } = metric;
    const base = { metric: name, threshold: setting.threshold, strictMode: setting.strictMode };
    if (call.customOnly && metric.isDefault) {
      results.push({ ...base, score: null, reason: null, success: null, error: `${name} is a default metric: the judge endpoint scores custom metrics (criteria, evaluationSteps) only` });
      continue;
    }
    try {
      const verdict = await call.judge({ metric: { name, multiTurn, criteria, evaluationSteps, evaluationParams }, testCase, target: call.target, chatbotRole: call.chatbotRole });
      results.push({ ...base, score: verdict.score, reason: setting.includeReason ? (verdict.reason ?? null) : null, success: passes(name, verdict.score, setting.threshold, setting.strictMode) });
    } catch (err) {
      firstError ??= `${name}: ${message(err)}`;
      results.push({ ...base, score: null, reason: null, success: null, error: message(err) });
    }
  }
  return firstError === undefined ? { status: "COMPLETED", results } : { status: "ERRORED", message: `the judge failed on ${firstError}`, results };
}

/**
 * The verdict an evaluation is recorded with: judged now by a judge function, PENDING while a
 * judge endpoint judges it in the background (its record `id` of `kind` gets the verdict when
 * done), or NOT_JUDGED without a judge. `work` judges with the judge it is handed.
 */
export async function verdictFor(ctx: RouteContext, kind: "job" | "testRun", id: string, work: (judge: Judge, customOnly: boolean) => Promise<Verdict>): Promise<Verdict> {
  const later = ctx.judging;
  if (later) {
    later.start(kind, id, () => work(later.judge, true));
    return { status: "PENDING", message: `waiting for the judge (${later.label})` };
  }
  if (ctx.judge) return work(ctx.judge, false);
  return { status: "NOT_JUDGED", message: NOT_JUDGED };
}

/** One collection over one test case, with the judge `verdictFor` hands over. */
export function judgeOne(ctx: RouteContext, kind: "job" | "testRun", id: string, collection: CollectionRecord, testCase: unknown, target: JudgeInput["target"], chatbotRole?: string): Promise<Verdict> {
  return verdictFor(ctx, kind, id, (judge, customOnly) => judgeCollection({ state: ctx.state, judge, target, chatbotRole, customOnly }, collection, testCase));
}
