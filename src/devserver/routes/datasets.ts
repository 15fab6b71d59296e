import type { Handler } from "../context.js";
import { badRequest, HttpError } from "../http-error.js";
import { checkObject, isPlainObject, opt, req, type Shape, t, toolCall } from "../schema.js";
import { type GoldenRecord, newId } from "../store.js";

const shared: Shape = {
  context: opt(t.nullable(t.list(t.any))),
  additionalMetadata: opt(t.nullable(t.record)),
  comments: opt(t.nullable(t.string)),
  sourceFile: opt(t.nullable(t.string)),
  finalized: opt(t.boolean),
  customColumnKeyValues: opt(t.record),
  imagesMapping: opt((v, p) => {
    t.record(v, p);
    for (const [k, e] of Object.entries(v as object)) t.object({ url: req(t.string), local: req(t.boolean) })(e, `${p}.${k}`);
  }),
  tags: opt(t.strings),
};

const singleTurnGolden: Shape = {
  input: req(t.string),
  actualOutput: opt(t.nullable(t.string)),
  expectedOutput: opt(t.nullable(t.string)),
  retrievalContext: opt(t.nullable(t.list(t.any))),
  toolsCalled: opt(t.nullable(t.list(toolCall))),
  expectedTools: opt(t.nullable(t.list(toolCall))),
  tokenCost: opt(t.nullable(t.number)),
  inputTokenCount: opt(t.nullable(t.nonNegativeInteger)),
  outputTokenCount: opt(t.nullable(t.nonNegativeInteger)),
  ...shared,
};

const turnShape = t.object({
  id: opt(t.string),
  role: req(t.enumOf(["user", "assistant"])),
  content: req(t.string),
  userId: opt(t.string),
  retrievalContext: opt(t.nullable(t.list(t.any))),
  toolsCalled: opt(t.nullable(t.list(toolCall))),
});

const multiTurnGolden: Shape = {
  scenario: req(t.string),
  expectedOutcome: opt(t.nullable(t.string)),
  userDescription: opt(t.nullable(t.string)),
  turns: opt(t.nullable(t.list(turnShape))),
  ...shared,
};

const VERSION = /^\d+(\.\d+)*$/;

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `POST /v2/datasets` (spec 4.9). */
export const pushDataset: Handler = (ctx) => {
  checkObject(
    ctx.body,
    { alias: req(t.nonEmpty), finalized: opt(t.boolean), version: opt(t.string), goldens: req(t.list(t.any, { nonEmpty: true })) },
    "body",
  );
  const body = ctx.body as { alias: string; finalized?: boolean; version?: string; goldens: unknown[] };
  if (body.version !== undefined && !VERSION.test(body.version)) throw badRequest('body.version must be a dotted numeric string such as "1" or "1.2.0"');
  const kindOf = (g: unknown, i: number): boolean => {
    const p = `body.goldens[${i}]`;
    if (!isPlainObject(g)) throw badRequest(`${p} must be an object`);
    const multi = "scenario" in g;
    if (multi && "input" in g) throw badRequest(`${p}: a golden has either input (single-turn) or scenario (multi-turn), not both`);
    if (!multi && !("input" in g)) throw badRequest(`${p}.input (single-turn) or ${p}.scenario (multi-turn) is required`);
    checkObject(g, multi ? multiTurnGolden : singleTurnGolden, p);
    return multi;
  };
  const multiTurn = kindOf(body.goldens[0], 0);
  body.goldens.forEach((g, i) => {
    if (kindOf(g, i) !== multiTurn) throw badRequest(`body.goldens[${i}]: single-turn and multi-turn goldens cannot be mixed in one push (spec 7 rule 6)`);
  });
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
  const dataset = existing ?? (ctx.state.datasets[body.alias] = { id: newId(ctx.state, "dataset"), alias: body.alias, multiTurn, unversioned: [], versions: {} });
  const versions = Object.keys(dataset.versions).sort(compareVersions);
  const target = body.version ?? versions.at(-1);
  if (target === undefined) dataset.unversioned.push(...goldens);
  else (dataset.versions[target] ??= []).push(...goldens);
  return { body: { success: true, data: { id: dataset.id }, link: `${ctx.baseUrl}/#/datasets/${encodeURIComponent(body.alias)}`, deprecated: false } };
};
