import type { Handler, Verdict } from "../context.js";
import { judgeCollection, verdictFor } from "../judging/collection.js";
import { checkEvaluate } from "../../protocol/requests.js";
import { newId, type TestRunRecord } from "../store/store.js";
import { findCollection } from "./collections.js";

/** `POST /v1/evaluate` (spec 4.5): runs a collection over test cases and creates a test run. */
export const evaluate: Handler = async (ctx) => {
  const multiTurn = checkEvaluate(ctx.body);
  const body = ctx.body as { metricCollection: string; testCases: unknown[]; hyperparameters?: Record<string, unknown>; identifier?: string };
  const collection = findCollection(ctx, body.metricCollection, multiTurn, "body.metricCollection");
  const id = newId(ctx.state, "run");
  const { state } = ctx;
  // The test cases are judged side by side (a judge endpoint bounds its calls); one that errs
  // makes the run ERRORED with its message, the others keep their scores.
  const verdict = await verdictFor(ctx, "testRun", id, async (judge, customOnly): Promise<Verdict> => {
    const verdicts = await Promise.all(body.testCases.map((tc) => judgeCollection({ state, judge, target: "test-run", customOnly }, collection, tc)));
    const errored = verdicts.find((v) => v.status === "ERRORED");
    return {
      status: errored ? "ERRORED" : "COMPLETED",
      ...(errored ? { message: errored.message } : {}),
      results: body.testCases.map((testCase, i) => ({ testCase, metricsData: verdicts[i]!.results ?? [] })),
    };
  });
  const run: TestRunRecord = {
    id,
    metricCollection: collection.name,
    multiTurn,
    identifier: body.identifier,
    hyperparameters: body.hyperparameters,
    testCases: body.testCases,
    createdAt: new Date(ctx.now).toISOString(),
    ...verdict,
  };
  ctx.state.testRuns.push(run);
  return { body: { success: true, data: { id: run.id } } };
};
