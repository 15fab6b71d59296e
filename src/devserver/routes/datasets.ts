import type { Handler } from "../context.js";
import { badRequest, HttpError, notFound } from "../http-error.js";
import { checkDatasetPullQuery } from "../../protocol/dataset-pull.js";
import { checkDatasetPush, compareVersions } from "../../protocol/requests.js";
import { dict } from "../store/dict.js";
import { type GoldenRecord, newId } from "../store/store.js";

/** `POST /v2/datasets` (spec 4.9). */
export const pushDataset: Handler = (ctx) => {
  const multiTurn = checkDatasetPush(ctx.body);
  const body = ctx.body as { alias: string; finalized?: boolean; version?: string; goldens: unknown[] };
  const existing = ctx.state.datasets[body.alias];
  if (existing && existing.multiTurn !== multiTurn) {
    throw badRequest(`dataset ${body.alias} is ${existing.multiTurn ? "multi-turn" : "single-turn"}; these goldens are ${multiTurn ? "multi-turn" : "single-turn"} (spec 7 rule 6)`);
  }
  if (body.version !== undefined && !existing) throw badRequest(`body.version: dataset ${body.alias} does not exist yet, so it has no version to push onto (spec 4.9 rule 3)`);
  if (body.version !== undefined && ctx.plan !== "team") throw new HttpError(403, "pushing to a dataset version requires the Team plan or above (spec 4.9 rule 4)");
  const finalized = body.finalized ?? true;
  const goldens: GoldenRecord[] = body.goldens.map((g) => {
    const golden: GoldenRecord = { ...(g as Record<string, unknown>), finalized };
    if (Array.isArray(golden.turns)) golden.turns = golden.turns.map((tn) => ({ ...(tn as object), id: newId(ctx.state, "turn") }));
    return golden;
  });
  const dataset = existing ?? (ctx.state.datasets[body.alias] = { id: newId(ctx.state, "dataset"), alias: body.alias, multiTurn, unversioned: [], versions: dict() });
  const versions = Object.keys(dataset.versions).sort(compareVersions);
  const target = body.version ?? versions.at(-1);
  if (target === undefined) dataset.unversioned.push(...goldens);
  else (dataset.versions[target] ??= []).push(...goldens);
  ctx.changed.datasets.add(body.alias);
  return { body: { success: true, data: { id: dataset.id }, link: `${ctx.baseUrl}/#/datasets/${encodeURIComponent(body.alias)}`, deprecated: false } };
};

/**
 * `GET /v1/datasets/:alias` (not in the spec; the vendor SDKs' read, `protocol/dataset-pull.ts`):
 * the goldens of one version (`?version=`), else of the latest version, else the unversioned
 * ones; only finalized goldens unless `?finalized=false`.
 */
export const pullDataset: Handler = (ctx) => {
  const query = checkDatasetPullQuery(ctx.query);
  for (const key of query.unknown) {
    if (ctx.strict) throw badRequest(`unknown query parameter ${key}; a pull takes version, finalized and public`);
    ctx.note(`ignored unknown query parameter ${key} of a dataset pull (strict mode rejects it)`);
  }
  const alias = ctx.params.alias!;
  const dataset = Object.hasOwn(ctx.state.datasets, alias) ? ctx.state.datasets[alias] : undefined;
  if (!dataset) throw notFound(`no dataset with alias ${alias}`);
  const versions = Object.keys(dataset.versions).sort(compareVersions);
  if (query.version !== undefined && !versions.includes(query.version)) {
    throw notFound(`dataset ${alias} has no version ${query.version}${versions.length > 0 ? `; it has ${versions.join(", ")}` : "; it has no versions"}`);
  }
  const version = query.version ?? versions.at(-1) ?? null;
  const all = version === null ? dataset.unversioned : (dataset.versions[version] ?? []);
  const goldens = query.finalized ? all.filter((g) => g.finalized) : all;
  const data = { id: dataset.id, version, [dataset.multiTurn ? "conversationalGoldens" : "goldens"]: goldens };
  return { body: { success: true, data } };
};
