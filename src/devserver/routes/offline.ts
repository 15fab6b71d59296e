import { type Handler, judgeCollection, type RouteContext } from "../context.js";
import { badRequest, notFound } from "../http-error.js";
import { checkOfflineEvaluation } from "../../protocol/requests.js";
import { type EvaluationJob, newId } from "../store/store.js";
import { findCollection } from "./collections.js";

function record(ctx: RouteContext, job: Omit<EvaluationJob, "id" | "createdAt" | "trigger">) {
  ctx.state.jobs.push({ id: newId(ctx.state, "job"), trigger: "offline", createdAt: new Date(ctx.now).toISOString(), ...job });
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
  const verdict = await judgeCollection(ctx, collection, { turns }, "thread", chatbotRole);
  return record(ctx, { target: "thread", targetId: ctx.params.id!, metricCollection: name, chatbotRole, ...verdict });
};

/** `POST /v1/evaluate/traces/:uuid`: single-turn collection over the test case sent at ingestion. */
export const evaluateTrace: Handler = async (ctx) => {
  const name = checkOfflineEvaluation(ctx.body, "trace");
  const trace = ctx.state.traces[ctx.params.uuid!];
  if (!trace) throw notFound(`no trace with uuid ${ctx.params.uuid}`);
  const collection = findCollection(ctx, name, false, "body.metricCollections");
  const verdict = await judgeCollection(ctx, collection, trace.fields.llmTestCase ?? { input: trace.fields.input, actualOutput: trace.fields.output }, "trace");
  return record(ctx, { target: "trace", targetId: trace.uuid, metricCollection: name, ...verdict });
};

/** `POST /v1/evaluate/spans/:uuid`: single-turn collection. */
export const evaluateSpan: Handler = async (ctx) => {
  const name = checkOfflineEvaluation(ctx.body, "span");
  const traceUuid = ctx.state.spanIndex[ctx.params.uuid!];
  if (!traceUuid) throw notFound(`no span with uuid ${ctx.params.uuid}`);
  const span = ctx.state.traces[traceUuid]!.spans.find((s) => s.uuid === ctx.params.uuid)!;
  const collection = findCollection(ctx, name, false, "body.metricCollections");
  const verdict = await judgeCollection(ctx, collection, span.llmTestCase ?? { input: span.input, actualOutput: span.output }, "span");
  return record(ctx, { target: "span", targetId: span.uuid, metricCollection: name, ...verdict });
};
