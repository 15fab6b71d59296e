import type { Handler, RouteContext } from "../context.js";
import { badRequest, conflict, notFound } from "../http-error.js";
import { checkCollectionCreate, checkCollectionUpdate } from "../../protocol/requests.js";
import { type CollectionRecord, type MetricSetting, newId } from "../store/store.js";

/** Settings with defaults applied, each naming an existing metric of the collection's kind (spec 7 rule 3). */
function settings(ctx: RouteContext, raw: unknown[], multiTurn: boolean): MetricSetting[] {
  return raw.map((s, i) => {
    const setting = s as Partial<MetricSetting> & { metric: { name: string } };
    const name = setting.metric.name;
    const path = `body.metricSettings[${i}].metric.name`;
    const sameKind = ctx.state.metrics.some((m) => m.name === name && m.multiTurn === multiTurn);
    if (!sameKind) {
      const otherKind = ctx.state.metrics.some((m) => m.name === name);
      throw badRequest(
        otherKind
          ? `${path}: metric "${name}" is ${multiTurn ? "single-turn" : "multi-turn"} and this collection is ${multiTurn ? "multi-turn" : "single-turn"} (spec 7 rule 3)`
          : `${path}: no metric named "${name}" exists in this project; create it first (spec 7 rule 3)`,
      );
    }
    return {
      metric: { name },
      threshold: setting.threshold ?? 0.5,
      activated: setting.activated ?? true,
      includeReason: setting.includeReason ?? true,
      strictMode: setting.strictMode ?? false,
    };
  });
}

function ensureUnique(ctx: RouteContext, name: string, multiTurn: boolean, except?: CollectionRecord): void {
  if (ctx.state.collections.some((c) => c !== except && c.name === name && c.multiTurn === multiTurn)) {
    throw conflict(`a ${multiTurn ? "multi-turn" : "single-turn"} metric collection named "${name}" already exists (spec 7 rule 1)`);
  }
}

export const createCollection: Handler = (ctx) => {
  const { name, multiTurn, metricSettings } = checkCollectionCreate(ctx.body);
  const resolved = settings(ctx, metricSettings ?? [], multiTurn);
  ensureUnique(ctx, name, multiTurn);
  const rec: CollectionRecord = { id: newId(ctx.state, "collection"), name, multiTurn, metricSettings: resolved };
  ctx.state.collections.push(rec);
  // Spec 4.4: with metricSettings the response is `{success}` only.
  return { body: metricSettings === undefined ? { success: true, data: { id: rec.id } } : { success: true } };
};

export const updateCollection: Handler = (ctx) => {
  const rec = ctx.state.collections.find((c) => c.id === ctx.params.id);
  if (!rec) throw notFound(`no metric collection with id ${ctx.params.id}`);
  const body = checkCollectionUpdate(ctx.body);
  const next = body.metricSettings ? settings(ctx, body.metricSettings, rec.multiTurn) : undefined;
  if (body.name !== undefined) ensureUnique(ctx, body.name, rec.multiTurn, rec);
  if (body.name !== undefined) rec.name = body.name;
  if (next) rec.metricSettings = next;
  return { body: { success: true } };
};

export const listCollections: Handler = (ctx) => ({
  body: { success: true, data: { metricCollections: ctx.state.collections.map((c) => structuredClone(c)) } },
});

/** The collection of a name and kind, or a 404/400 that says which part is wrong. */
export function findCollection(ctx: RouteContext, name: string, multiTurn: boolean, path: string): CollectionRecord {
  const rec = ctx.state.collections.find((c) => c.name === name && c.multiTurn === multiTurn);
  if (rec) return rec;
  if (ctx.state.collections.some((c) => c.name === name)) {
    throw badRequest(
      `${path}: collection "${name}" is ${multiTurn ? "single-turn" : "multi-turn"}; ${multiTurn ? "threads and conversational test cases need a multi-turn" : "traces, spans and single-turn test cases need a single-turn"} collection (spec 4.4)`,
    );
  }
  throw notFound(`${path}: no metric collection named "${name}"`);
}
