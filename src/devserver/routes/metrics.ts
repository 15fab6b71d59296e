import { checkBatchMetrics, checkMetricCreate, checkMetricRules, checkMetricUpdate } from "../../protocol/requests.js";
import type { Handler, RouteContext } from "../context.js";
import { badRequest, conflict, notFound } from "../http-error.js";
import { type MetricRecord, newId } from "../store/store.js";

type NewMetric = Omit<MetricRecord, "id" | "isDefault">;

/** Creates metrics all-or-nothing; (name, multiTurn) is unique, default metrics included (spec 7 rule 1). */
function createAll(ctx: RouteContext, metrics: NewMetric[]): string[] {
  for (const m of metrics) {
    if (ctx.state.metrics.some((x) => x.name === m.name && x.multiTurn === m.multiTurn)) {
      throw conflict(`a ${m.multiTurn ? "multi-turn" : "single-turn"} metric named "${m.name}" already exists (spec 7 rule 1)`);
    }
  }
  return metrics.map((m) => {
    const rec: MetricRecord = { id: newId(ctx.state, "metric"), isDefault: false, ...m };
    ctx.state.metrics.push(rec);
    return rec.id;
  });
}

export const createMetric: Handler = (ctx) => {
  if (checkMetricCreate(ctx.body)) {
    return { body: { success: true, data: { ids: createAll(ctx, (ctx.body as { metrics: NewMetric[] }).metrics) } } };
  }
  const [id] = createAll(ctx, [ctx.body as NewMetric]);
  return { body: { success: true, data: { id } } };
};

export const batchCreateMetrics: Handler = (ctx) => {
  checkBatchMetrics(ctx.body);
  return { body: { success: true, data: { ids: createAll(ctx, (ctx.body as { metrics: NewMetric[] }).metrics) } } };
};

export const updateMetric: Handler = (ctx) => {
  const metric = ctx.state.metrics.find((m) => m.id === ctx.params.id);
  if (!metric) throw notFound(`no metric with id ${ctx.params.id}`);
  if (metric.isDefault) throw badRequest(`metric ${metric.name} is a default metric; only custom metrics can be updated`);
  checkMetricUpdate(ctx.body);
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
