import { judgeCollection, type Handler } from "../context.js";
import { checkEvaluate } from "../../protocol/requests.js";
import { newId, type TestRunRecord } from "../store/store.js";
import { findCollection } from "./collections.js";

/** `POST /v1/evaluate` (spec 4.5): runs a collection over test cases and creates a test run. */
export const evaluate: Handler = async (ctx) => {
  const multiTurn = checkEvaluate(ctx.body);
  const body = ctx.body as { metricCollection: string; testCases: unknown[]; hyperparameters?: Record<string, unknown>; identifier?: string };
  const collection = findCollection(ctx, body.metricCollection, multiTurn, "body.metricCollection");
  const results: unknown[] = [];
  let status: TestRunRecord["status"] = "COMPLETED";
  let message: string | undefined;
  for (const tc of body.testCases) {
    const verdict = await judgeCollection(ctx, collection, tc, "test-run");
    status = verdict.status;
    message = verdict.message;
    if (verdict.results) results.push({ testCase: tc, metricsData: verdict.results });
  }
  const run: TestRunRecord = {
    id: newId(ctx.state, "run"),
    metricCollection: collection.name,
    multiTurn,
    identifier: body.identifier,
    hyperparameters: body.hyperparameters,
    testCases: body.testCases,
    status,
    message,
    results: ctx.judge ? results : undefined,
    createdAt: new Date(ctx.now).toISOString(),
  };
  ctx.state.testRuns.push(run);
  return { body: { success: true, data: { id: run.id } } };
};
