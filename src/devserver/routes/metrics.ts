import type { Handler, RouteContext } from "../context.js";
import { badRequest, conflict, notFound } from "../http-error.js";
import { checkObject, isPlainObject, opt, req, type Shape, t } from "../schema.js";
import { type MetricRecord, newId } from "../store.js";

/** Test-case fields a single-turn metric may read (wire-format). */
export const evaluationParamValues = [
  "input",
  "actualOutput",
  "expectedOutput",
  "context",
  "retrievalContext",
  "toolsCalled",
  "expectedTools",
] as const;

const metricShape: Shape = {
  name: req(t.nonEmpty),
  criteria: opt(t.string),
  evaluationSteps: opt(t.list(t.any)),
  evaluationParams: opt(t.list(t.enumOf(evaluationParamValues))),
  multiTurn: req(t.boolean),
};

const populated = (v: unknown) => (typeof v === "string" ? v.trim().length > 0 : Array.isArray(v) && v.length > 0);

/** Rules of spec 4.3 on a whole metric (after create, or after an update is applied). */
function checkMetricRules(m: Partial<MetricRecord>, path: string): void {
  if (!populated(m.criteria) && !populated(m.evaluationSteps)) {
    throw badRequest(`${path}: criteria and/or evaluationSteps must be populated (spec 7 rule 4)`);
  }
  if (m.multiTurn === false && !populated(m.evaluationParams)) {
    throw badRequest(`${path}.evaluationParams is required for a single-turn metric (spec 4.3)`);
  }
  if (m.multiTurn === true && m.evaluationParams !== undefined) {
    throw badRequest(`${path}.evaluationParams: a multi-turn metric does not take evaluationParams (spec 4.3)`);
  }
}

function parseMetric(v: unknown, path: string): Omit<MetricRecord, "id" | "isDefault"> {
  if (isPlainObject(v) && "metricSettings" in v) {
    throw badRequest(`${path}.metricSettings: this is a metric collection body; send it to POST /v1/metric-collections`);
  }
  checkObject(v, metricShape, path);
  const m = v as unknown as Omit<MetricRecord, "id" | "isDefault">;
  checkMetricRules(m, path);
  return m;
}

function createAll(ctx: RouteContext, metrics: Omit<MetricRecord, "id" | "isDefault">[]): string[] {
  const seen = new Set<string>();
  for (const m of metrics) {
    const key = `${m.name}\u0000${m.multiTurn}`;
    if (seen.has(key) || ctx.state.metrics.some((x) => x.name === m.name && x.multiTurn === m.multiTurn)) {
      throw conflict(`a ${m.multiTurn ? "multi-turn" : "single-turn"} metric named "${m.name}" already exists (spec 7 rule 1)`);
    }
    seen.add(key);
  }
  return metrics.map((m) => {
    const rec: MetricRecord = { id: newId(ctx.state, "metric"), isDefault: false, ...m };
    ctx.state.metrics.push(rec);
    return rec.id;
  });
}

function listBody(ctx: RouteContext, path: string): unknown[] {
  const body = ctx.body as { metrics?: unknown };
  checkObject(body, { metrics: req(t.list(t.any, { nonEmpty: true })) }, "body");
  return (body.metrics as unknown[]).map((m, i) => parseMetric(m, `${path}.metrics[${i}]`));
}

export const createMetric: Handler = (ctx) => {
  if (isPlainObject(ctx.body) && "metrics" in ctx.body) {
    const ids = createAll(ctx, listBody(ctx, "body") as Omit<MetricRecord, "id" | "isDefault">[]);
    return { body: { success: true, data: { ids } } };
  }
  const [id] = createAll(ctx, [parseMetric(ctx.body, "body")]);
  return { body: { success: true, data: { id } } };
};

export const batchCreateMetrics: Handler = (ctx) => {
  const ids = createAll(ctx, listBody(ctx, "body") as Omit<MetricRecord, "id" | "isDefault">[]);
  return { body: { success: true, data: { ids } } };
};

export const updateMetric: Handler = (ctx) => {
  const metric = ctx.state.metrics.find((m) => m.id === ctx.params.id);
  if (!metric) throw notFound(`no metric with id ${ctx.params.id}`);
  if (metric.isDefault) throw badRequest(`metric ${metric.name} is a default metric; only custom metrics can be updated`);
  checkObject(ctx.body, { ...metricShape, name: opt(t.nonEmpty), multiTurn: opt(t.boolean) }, "body");
  const body = ctx.body as Partial<MetricRecord>;
  if (body.multiTurn !== undefined && body.multiTurn !== metric.multiTurn) {
    throw badRequest("body.multiTurn: a metric's kind cannot change after creation (spec 7 rule 2)");
  }
  const next = { ...metric, ...body };
  checkMetricRules(next, "metric after update");
  if (next.name !== metric.name && ctx.state.metrics.some((m) => m.name === next.name && m.multiTurn === metric.multiTurn)) {
    throw conflict(`a ${metric.multiTurn ? "multi-turn" : "single-turn"} metric named "${next.name}" already exists (spec 7 rule 1)`);
  }
  // Collections refer to metrics by name: follow a rename.
  for (const c of ctx.state.collections.filter((c) => c.multiTurn === metric.multiTurn)) {
    for (const s of c.metricSettings) if (s.metric.name === metric.name) s.metric.name = next.name;
  }
  Object.assign(metric, body);
  return { body: { success: true } };
};

export const listMetrics: Handler = (ctx) => ({
  body: { success: true, data: { metrics: ctx.state.metrics.map((m) => ({ ...m })) } },
});
