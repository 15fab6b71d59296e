import type { Handler, RouteContext } from "../context.js";
import { badRequest, notFound } from "../http-error.js";
import { keyView, rotate } from "../keys.js";
import { checkObject, opt, req, t } from "../schema.js";

function orgKey(ctx: RouteContext) {
  const raw = ctx.params.apiKeyId!;
  if (!/^\d+$/.test(raw)) throw badRequest(`path apiKeyId must be an integer; got "${raw}"`);
  const key = ctx.state.keys.find((k) => k.id === Number(raw) && k.scope === "org");
  if (!key) throw notFound(`no organization API key with id ${raw}`);
  return key;
}

/** `POST /v1/organization/api-keys/:apiKeyId/rotate` (spec 4.1). */
export const rotateKey: Handler = (ctx) => {
  const key = orgKey(ctx);
  checkObject(ctx.body, { gracePeriodInHours: opt(t.nonNegativeInteger), expiresInDays: opt(t.nullable(t.nonNegativeInteger)) }, "body");
  const body = ctx.body as { gracePeriodInHours?: number; expiresInDays?: number | null };
  if (body.expiresInDays === 0) throw badRequest("body.expiresInDays must be at least 1, or null to remove the expiration");
  return { body: { success: true, data: { apiKey: rotate(key, ctx.region, ctx.now, body) } } };
};

/** `PUT /v2/organization/api-keys/:apiKeyId` (spec 4.2). */
export const updateKey: Handler = (ctx) => {
  const key = orgKey(ctx);
  checkObject(ctx.body, { valid: req(t.boolean) }, "body");
  key.valid = (ctx.body as { valid: boolean }).valid;
  return { body: { success: true, data: keyView(key), deprecated: false } };
};
