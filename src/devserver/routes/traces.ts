import type { Handler, RouteContext } from "../context.js";
import { judgeOne } from "../judging/collection.js";
import { badRequest, conflict, notFound } from "../http-error.js";
import { type Check, checkObject, isoMicros, isPlainObject, llmTestCase, opt, req, SchemaError, type Shape, t, testCaseExtras } from "../../protocol/schema.js";
import { checkFields } from "../lenient.js";
import { checkHierarchy } from "../hierarchy.js";
import { bodyDigestSliced } from "../idempotency.js";
import { type EvaluationJob, newId, type StoredSpan, type StoredTrace } from "../store/store.js";

export const spanLists = {
  baseSpans: "base",
  llmSpans: "llm",
  retrieverSpans: "retriever",
  agentSpans: "agent",
  toolSpans: "tool",
} as const;
type ListKey = keyof typeof spanLists;
const listKeys = Object.keys(spanLists) as ListKey[];

/** An assistant message's tool call, as the SDK keeps it beside the text: its id links the tool message that answers it. */
const messageToolCall = t.object({ id: opt(t.string), name: req(t.string), arguments: opt(t.any) });
/** Spec 2.5's `{role, content}`, and the links of a tool call to its result (the live service takes any JSON here). */
const message = t.object({ role: req(t.string), content: req(t.string), tool_calls: opt(t.list(messageToolCall)), tool_call_id: opt(t.string) });
const messages: typeof message = t.list(message);
const text = t.string;
const llmOutput: typeof message = (v, p) => (typeof v === "string" ? undefined : messages(v, p));

const commonSpan: Shape = {
  uuid: req(t.nonEmpty),
  name: req(t.string),
  type: opt(t.enumOf(Object.values(spanLists))),
  status: opt(t.enumOf(["SUCCESS", "ERRORED"])),
  error: opt(t.string),
  startTime: req(t.iso),
  endTime: req(t.iso),
  parentUuid: opt(t.nonEmpty),
  metadata: opt(t.record),
  metricCollection: opt(t.nonEmpty),
  llmTestCase: opt(llmTestCase),
  integration: opt(t.string),
  ...testCaseExtras,
};

/** Span shapes per type: spec 2.5 types base input/output as strings and llm input as messages. */
const spanShapes: Record<ListKey, Shape> = {
  baseSpans: { ...commonSpan, input: opt(text), output: opt(text) },
  llmSpans: {
    ...commonSpan,
    input: opt(messages),
    output: opt(llmOutput),
    model: opt(t.string),
    provider: opt(t.string),
    inputTokenCount: opt(t.nonNegativeInteger),
    outputTokenCount: opt(t.nonNegativeInteger),
    costPerInputToken: opt(t.number),
    costPerOutputToken: opt(t.number),
    promptAlias: opt(t.string),
    promptVersion: opt(t.string),
    promptLabel: opt(t.string),
    promptCommitHash: opt(t.string),
  },
  retrieverSpans: { ...commonSpan, input: opt(t.any), output: opt(t.any), embedder: opt(t.string), topK: opt(t.nonNegativeInteger), chunkSize: opt(t.nonNegativeInteger) },
  agentSpans: { ...commonSpan, input: opt(t.any), output: opt(t.any), availableTools: opt(t.strings), agentHandoffs: opt(t.strings) },
  toolSpans: { ...commonSpan, input: opt(t.any), output: opt(t.any), description: opt(t.string) },
};

/** What the live service accepts beyond the spec (wire-format): any JSON as input/output, fractional token counts. */
const relaxed: Shape = { input: opt(t.any), output: opt(t.any) };
const tokenCount = opt(((v, p) => {
  if (typeof v !== "number" || !(v >= 0) || !Number.isFinite(v)) throw new SchemaError(`${p} must be a non-negative number`);
}) as Check);
const lenientSpanShapes: Record<ListKey, Shape> = {
  baseSpans: { ...spanShapes.baseSpans, ...relaxed },
  llmSpans: { ...spanShapes.llmSpans, ...relaxed, inputTokenCount: tokenCount, outputTokenCount: tokenCount },
  retrieverSpans: spanShapes.retrieverSpans,
  agentSpans: spanShapes.agentSpans,
  toolSpans: spanShapes.toolSpans,
};

const spanListFields: Shape = Object.fromEntries(listKeys.map((k) => [k, opt(t.list(t.any))]));

const traceShape: Shape = {
  uuid: req(t.nonEmpty),
  name: opt(t.string),
  input: opt(text),
  output: opt(text),
  startTime: req(t.iso),
  endTime: req(t.iso),
  environment: opt(t.nonEmpty),
  metadata: opt(t.record),
  tags: opt(t.strings),
  threadId: opt(t.nonEmpty),
  userId: opt(t.nonEmpty),
  status: opt(t.enumOf(["SUCCESS", "ERRORED"])),
  metricCollection: opt(t.nonEmpty),
  llmTestCase: opt(llmTestCase),
  ...testCaseExtras,
  ...spanListFields,
};

const lenientTraceShape: Shape = { ...traceShape, ...relaxed };

const updateShape: Shape = {
  output: opt(text),
  endTime: opt(t.iso),
  environment: opt(t.nonEmpty),
  metadata: opt(t.record),
  tags: opt(t.strings),
  ...spanListFields,
};

const lenientUpdateShape: Shape = { ...updateShape, output: opt(t.any) };

/** Checks the spans of each list and returns them flat, with their type. */
async function collectSpans(body: Record<string, unknown>, path: string, ctx: RouteContext): Promise<StoredSpan[]> {
  const out: StoredSpan[] = [];
  for (const key of listKeys) {
    const list = body[key];
    if (list === undefined) continue;
    const spans = list as unknown[];
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i];
      const p = `${path}.${key}[${i}]`;
      checkFields(span, spanShapes[key], lenientSpanShapes[key], p, ctx);
      if (span.type !== undefined && span.type !== spanLists[key]) {
        throw badRequest(`${p}.type is "${String(span.type)}" but the span is in ${key}`);
      }
      // Stored as parsed, with its list's type: the body is not used once its spans are taken.
      span.type = spanLists[key];
      out.push(span as StoredSpan);
      if (ctx.slicer.due()) await ctx.slicer.yield();
    }
  }
  return out;
}

function index(map: Record<string, string[]>, key: unknown, uuid: string): void {
  if (typeof key !== "string") return;
  const list = (map[key] ??= []);
  if (!list.includes(uuid)) list.push(uuid);
}

/** Records the online evaluations of spec 4.6: a single-turn collection plus a test case. */
async function onlineJobs(ctx: RouteContext, target: "trace" | "span", targetId: string, fields: Record<string, unknown>): Promise<void> {
  if (typeof fields.metricCollection !== "string" || fields.llmTestCase === undefined) return;
  const job: EvaluationJob = {
    id: newId(ctx.state, "job"),
    trigger: "online",
    target,
    targetId,
    metricCollection: fields.metricCollection,
    status: "NOT_JUDGED",
    createdAt: new Date(ctx.now).toISOString(),
  };
  const collection = ctx.state.collections.find((c) => c.name === fields.metricCollection && !c.multiTurn);
  if (!collection) {
    job.status = "REJECTED";
    job.message = `no single-turn metric collection named "${fields.metricCollection}": not evaluated`;
  } else {
    Object.assign(job, await judgeOne(ctx, "job", job.id, collection, fields.llmTestCase, target));
  }
  ctx.state.jobs.push(job);
}

/**
 * Digest of a trace as sent (canonical JSON, key order aside): an identical retry of its creation
 * is a no-op. For a single-trace body it is the digest of the whole body, computed once.
 */
function digest(trace: unknown, ctx: RouteContext, isWholeBody: boolean): Promise<string> {
  return isWholeBody && ctx.bodyDigest ? ctx.bodyDigest() : bodyDigestSliced(trace, ctx.slicer);
}

/** Whether a span or trace asks for an online evaluation (spec 4.6). */
const wantsJob = (fields: Record<string, unknown>) => typeof fields.metricCollection === "string" && fields.llmTestCase !== undefined;

/** `POST /v1/traces`: one trace, or `{traces: [...]}`; all-or-nothing. */
export const ingestTraces: Handler = async (ctx) => {
  const isList = isPlainObject(ctx.body) && "traces" in ctx.body;
  let raw: unknown[];
  if (isList) {
    checkObject(ctx.body, { traces: req(t.list(t.any)) }, "body");
    raw = (ctx.body as { traces: unknown[] }).traces;
  } else {
    raw = [ctx.body];
  }
  const prepared: { uuid: string; fields: Record<string, unknown>; spans: StoredSpan[]; digest: string; replay: boolean }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    const trace = raw[i];
    const path = isList ? `body.traces[${i}]` : "body";
    checkFields(trace, traceShape, lenientTraceShape, path, ctx);
    const uuid = trace.uuid as string;
    if (seen.has(uuid)) throw conflict(`${path}: trace ${uuid} appears twice in this request`);
    seen.add(uuid);
    if (isoMicros(trace.endTime as string) < isoMicros(trace.startTime as string)) throw badRequest(`${path}: trace ends before it starts`);
    const d = await digest(trace, ctx, !isList);
    const existing = ctx.state.traces[uuid];
    if (existing) {
      // A retried request whose first attempt was stored: accepted, nothing changes.
      if (existing.digest === d) {
        prepared.push({ uuid, fields: {}, spans: [], digest: d, replay: true });
        continue;
      }
      throw conflict(`${path}: trace ${uuid} already exists; change it with PUT /v1/traces/${uuid}`);
    }
    const spans = await collectSpans(trace, path, ctx);
    await checkHierarchy(uuid, [], spans, path, ctx.slicer);
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(trace)) if (!Object.hasOwn(spanLists, k)) fields[k] = v;
    prepared.push({ uuid, fields, spans, digest: d, replay: false });
  }
  // Everything is valid: now write.
  const nowIso = new Date(ctx.now).toISOString();
  // A trace with the same uuid may have been stored by another request while this one yielded.
  for (const p of prepared) {
    if (!p.replay && ctx.state.traces[p.uuid]) throw conflict(`trace ${p.uuid} was stored by another request meanwhile; change it with PUT /v1/traces/${p.uuid}`);
  }
  for (const p of prepared.filter((x) => !x.replay)) {
    // Spans indexed first, in slices (a reader that finds one before its trace is stored finds no trace).
    const wanting: StoredSpan[] = [];
    for (const s of p.spans) {
      ctx.state.spanIndex[s.uuid] = p.uuid;
      if (wantsJob(s)) wanting.push(s);
      if (ctx.slicer.due()) await ctx.slicer.yield();
    }
    const stored: StoredTrace = { uuid: p.uuid, fields: p.fields, spans: p.spans, receivedAt: nowIso, updatedAt: nowIso, digest: p.digest };
    ctx.state.traces[p.uuid] = stored;
    ctx.changed.traces.add(p.uuid);
    index(ctx.state.threads, p.fields.threadId, p.uuid);
    index(ctx.state.users, p.fields.userId, p.uuid);
    if (wantsJob(p.fields)) await onlineJobs(ctx, "trace", p.uuid, p.fields);
    for (const s of wanting) {
      await onlineJobs(ctx, "span", s.uuid, s);
      if (ctx.slicer.due()) await ctx.slicer.yield();
    }
  }
  return { body: isList ? { success: true } : { success: true, data: { id: prepared[0]!.uuid } } };
};

/** `PUT /v1/traces/:uuid`: overwrite output/endTime/environment, append metadata/tags/spans. */
export const updateTrace: Handler = async (ctx) => {
  const trace = ctx.state.traces[ctx.params.uuid!];
  if (!trace) throw notFound(`no trace with uuid ${ctx.params.uuid}`);
  if (isPlainObject(ctx.body)) {
    for (const key of Object.keys(ctx.body)) {
      if (!Object.hasOwn(updateShape, key) && Object.hasOwn(traceShape, key)) {
        throw badRequest(`body.${key} cannot be updated; a trace update takes output, endTime, environment, metadata, tags and span lists (spec 4.6)`);
      }
    }
  }
  checkFields(ctx.body, updateShape, lenientUpdateShape, "body", ctx);
  const body = ctx.body as Record<string, unknown>;
  const added = await collectSpans(body, "body", ctx);
  await checkHierarchy(trace.uuid, trace.spans, added, "body", ctx.slicer);
  const endTime = (body.endTime as string | undefined) ?? (trace.fields.endTime as string);
  if (isoMicros(endTime) < isoMicros(trace.fields.startTime as string)) throw badRequest("body.endTime is before the trace's startTime");
  // Spans indexed in slices first; then the trace changes at once.
  for (const s of added) {
    ctx.state.spanIndex[s.uuid] = trace.uuid;
    if (ctx.slicer.due()) await ctx.slicer.yield();
  }
  for (const key of ["output", "endTime", "environment"] as const) if (body[key] !== undefined) trace.fields[key] = body[key];
  if (body.metadata) trace.fields.metadata = { ...(trace.fields.metadata as object | undefined), ...(body.metadata as object) };
  if (body.tags) trace.fields.tags = [...((trace.fields.tags as string[] | undefined) ?? []), ...(body.tags as string[])];
  for (const s of added) trace.spans.push(s);
  trace.updatedAt = new Date(ctx.now).toISOString();
  ctx.changed.traces.add(trace.uuid);
  return { body: { success: true } };
};
