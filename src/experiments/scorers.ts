import type { ConversationalTestCase, SingleTurnTestCase, Turn } from "../protocol/types.js";
import type { CapturedTrace } from "../testing/captured.js";
import { describeError } from "../util/describe-error.js";
import { errored } from "./results.js";
import type { ExperimentGolden, MetricVerdict, Scorer, ScorerInput } from "./types.js";

/** A scorer's threshold when it gives none (deepeval's metrics default to 0.5 as well). */
export const DEFAULT_SCORER_THRESHOLD = 0.5;

/** What a scorer of one case gets, from its test case and trace. */
export function scorerInput(golden: ExperimentGolden, testCase: SingleTurnTestCase | ConversationalTestCase, actualOutput: string, trace: CapturedTrace | undefined): ScorerInput {
  if ("turns" in testCase) {
    const tc = testCase as ConversationalTestCase;
    return { golden, input: tc.scenario ?? "", actualOutput, expectedOutput: tc.expectedOutcome, context: tc.context, retrievalContext: undefined, toolsCalled: undefined, turns: tc.turns as Turn[], trace };
  }
  const tc = testCase as SingleTurnTestCase;
  return {
    golden,
    input: tc.input,
    actualOutput,
    expectedOutput: tc.expectedOutput,
    context: tc.context,
    retrievalContext: tc.retrievalContext as string[] | undefined,
    toolsCalled: tc.toolsCalled,
    turns: undefined,
    trace,
  };
}

/** A scorer's outcome on one case: its verdict, or its error (named once every case is in: see {@link scorerName}). */
export type ScorerOutcome = { ok: true; verdict: MetricVerdict } | { ok: false; error: string };

/**
 * Runs every scorer on one case, side by side. A scorer that throws, rejects or returns what is
 * no `{ name, score (0..1), reason?, threshold? }` gives an errored outcome, never a throw.
 */
export async function runScorers(scorers: readonly Scorer[], input: ScorerInput): Promise<ScorerOutcome[]> {
  return Promise.all(
    scorers.map(async (scorer): Promise<ScorerOutcome> => {
      let result: unknown;
      try {
        result = await scorer(input);
      } catch (err) {
        return { ok: false, error: `the scorer threw: ${describeError(err)}` };
      }
      return checkResult(result);
    }),
  );
}

function checkResult(r: unknown): ScorerOutcome {
  if (r === null || typeof r !== "object") return { ok: false, error: `the scorer returned ${r === null ? "null" : typeof r}; return { name, score, reason?, threshold? }` };
  const { name, score, reason, threshold } = r as Record<string, unknown>;
  if (typeof name !== "string" || name.trim() === "") return { ok: false, error: "the scorer returned no name; return { name, score, reason?, threshold? }" };
  if (typeof score !== "number" || !(score >= 0 && score <= 1)) return { ok: false, error: `scorer ${name} returned score ${JSON.stringify(score) ?? String(score)}; a score is a number from 0 to 1` };
  if (threshold !== undefined && (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1))) return { ok: false, error: `scorer ${name} returned threshold ${JSON.stringify(threshold)}; a threshold is a number from 0 to 1` };
  const t = threshold ?? DEFAULT_SCORER_THRESHOLD;
  const success = score >= t;
  return {
    ok: true,
    verdict: { name, state: success ? "passed" : "failed", score, threshold: t, success, reason: typeof reason === "string" ? reason : null, error: null, source: "scorer" },
  };
}

/**
 * The name of scorer `i` in the results: the name it returned on some case, else its function's
 * name, else `scorer i+1` (a scorer that threw on every case gave none).
 */
export function scorerName(scorer: Scorer, i: number, outcomes: readonly (readonly ScorerOutcome[] | undefined)[]): string {
  for (const o of outcomes) {
    const one = o?.[i];
    if (one?.ok) return one.verdict.name;
  }
  return scorer.name || `scorer ${i + 1}`;
}

/** The verdicts of a case's scorers, the errored ones under their scorer's name. */
export function scorerVerdicts(outcomes: readonly ScorerOutcome[], names: readonly string[]): MetricVerdict[] {
  return outcomes.map((o, i) => (o.ok ? o.verdict : errored(names[i]!, o.error, "scorer")));
}
