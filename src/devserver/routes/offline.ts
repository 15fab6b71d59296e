import type { Handler, RouteContext, Verdict } from "../context.js";
import { judgeOne } from "../judging/collection.js";
import { badRequest, notFound } from "../http-error.js";
import { checkOfflineEvaluation } from "../../protocol/requests.js";
import { type EvaluationJob, newId } from "../store/store.js";
import { findCollection } from "./collections.js";

/** Judges (now, later or not: see `verdictFor`) and records an offline evaluation. */
async function record(
  ctx: RouteContext,
  job: Omit<EvaluationJob, "id" | "createdAt" | "trigger" | "status">,
  judge: (id: string) => Promise<Verdict>,
) {
  const id = newId(ctx.state, "job");
  const verdict = await judge(id);
  ctx.state.jobs.push({ id, trigger: "offline", createdAt: new Date(ctx.now).toISOString(), ...job, ...verdict });
  return { body: { success: true } };
}

/** `POST /v1/evaluate/threads/:id`: multi-turn collection; the thread's traces need input and/or output. */
export const evaluateThread: Handler = async (ctx) => {
  const name = checkOfflineEvaluation(ctx.body, "thread");
  const body = ctx.body as Record<string, unknown>;
  const uuids = ctx.state.threads[ctx.params.id!];
  if (!uuids) throw notFound(`no thread with id ${ctx.params.id}`);
  const collection = findCollection(ctx, name, true, "body.metricCollections");
  const traces = uuids.map((u) => ctx.state.traces[u]!).sort((a, b) => String(a.fields.startTime).localeCompare(String(b.fields.startTime)));
  const bare = traces.filter((tr) => tr.fields.input === undefined && tr.fields.output === undefined);
  if (bare.length > 0 && ctx.strict) {
    throw badRequest(`trace ${bare[0]!.uuid} of thread ${ctx.params.id} has neither input nor output; thread evaluation needs them (spec 4.7)`);
  }
  if (bare.length === traces.length) throw badRequest(`no trace of thread ${ctx.params.id} has an input or output; thread evaluation needs them (spec 4.7)`);
  if (bare.length > 0) ctx.note(`skipped ${bare.length} trace(s) of thread ${ctx.params.id} without input or output, as the live service does (strict mode rejects the evaluation)`);
  const turns = traces.flatMap((tr) => [
    ...(tr.fields.input !== undefined ? [{ role: "user", content: tr.fields.input }] : []),
    ...(tr.fields.output !== undefined ? [{ role: "assistant", content: tr.fields.output }] : []),
  ]);
  const chatbotRole = body.chatbotRole as string | undefined;
  return record(ctx, { target: "thread", targetId: ctx.params.id!, metricCollection: name, chatbotRole }, (id) => judgeOne(ctx, "job", id, collection, { turns }, "thread", chatbotRole));
};

/** `POST /v1/evaluate/traces/:uuid`: single-turn collection over the test case sent at ingestion. */
export const evaluateTrace: Handler = async (ctx) => {
  const name = checkOfflineEvaluation(ctx.body, "trace");
  const trace = ctx.state.traces[ctx.params.uuid!];
  if (!trace) throw notFound(`no trace with uuid ${ctx.params.uuid}`);
  const collection = findCollection(ctx, name, false, "body.metricCollections");
  const testCase = trace.fields.llmTestCase ?? { input: trace.fields.input, actualOutput: trace.fields.output };
  return record(ctx, { target: "trace", targetId: trace.uuid, metricCollection: name }, (id) => judgeOne(ctx, "job", id, collection, testCase, "trace"));
};

/** `POST /v1/evaluate/spans/:uuid`: single-turn collection. */
export const evaluateSpan: Handler = async (ctx) => {
  const name = checkOfflineEvaluation(ctx.body, "span");
  const traceUuid = ctx.state.spanIndex[ctx.params.uuid!];
  if (!traceUuid) throw notFound(`no span with uuid ${ctx.params.uuid}`);
  const span = ctx.state.traces[traceUuid]!.spans.find((s) => s.uuid === ctx.params.uuid)!;
  const collection = findCollection(ctx, name, false, "body.metricCollections");
  const testCase = span.llmTestCase ?? { input: span.input, actualOutput: span.output };
  return record(ctx, { target: "span", targetId: span.uuid, metricCollection: name }, (id) => judgeOne(ctx, "job", id, collection, testCase, "span"));
};
