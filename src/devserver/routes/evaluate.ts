import { judgeCollection, type Handler } from "../context.js";
import { badRequest } from "../http-error.js";
import { checkObject, isPlainObject, llmTestCase, opt, req, t, turn } from "../schema.js";
import { newId, type TestRunRecord } from "../store.js";
import { findCollection } from "./collections.js";

const conversationalTestCase = t.object({
  turns: req(t.list(turn, { nonEmpty: true })),
  scenario: opt(t.string),
  expectedOutcome: opt(t.string),
  userDescription: opt(t.string),
  chatbotRole: opt(t.string),
  context: opt(t.strings),
  name: opt(t.string),
  additionalMetadata: opt(t.record),
  comments: opt(t.string),
});

/** `POST /v1/evaluate` (spec 4.5): runs a collection over test cases and creates a test run. */
export const evaluate: Handler = async (ctx) => {
  checkObject(
    ctx.body,
    {
      metricCollection: req(t.nonEmpty),
      testCases: req(t.list(t.any, { nonEmpty: true })),
      hyperparameters: opt(t.record),
      identifier: opt(t.string),
    },
    "body",
  );
  const body = ctx.body as { metricCollection: string; testCases: unknown[]; hyperparameters?: Record<string, unknown>; identifier?: string };
  const multiTurn = isPlainObject(body.testCases[0]) && "turns" in body.testCases[0];
  body.testCases.forEach((tc, i) => {
    const isConversational = isPlainObject(tc) && "turns" in tc;
    if (isConversational !== multiTurn) {
      throw badRequest(`body.testCases[${i}]: single-turn and conversational test cases cannot be mixed in one run`);
    }
    (multiTurn ? conversationalTestCase : llmTestCase)(tc, `body.testCases[${i}]`);
  });
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
