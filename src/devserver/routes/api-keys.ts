import type { Handler, RouteContext } from "../context.js";
import { notFound } from "../http-error.js";
import { keyView, rotate } from "../keys.js";
import { checkApiKeyId, checkKeyUpdate, checkRotate } from "../../protocol/requests.js";

function orgKey(ctx: RouteContext) {
  const id = checkApiKeyId(ctx.params.apiKeyId);
  const key = ctx.state.keys.find((k) => k.id === id && k.scope === "org");
  if (!key) throw notFound(`no organization API key with id ${id}`);
  return key;
}

/** `POST /v1/organization/api-keys/:apiKeyId/rotate` (spec 4.1). */
export const rotateKey: Handler = (ctx) => {
  const key = orgKey(ctx);
  const body = checkRotate(ctx.body);
  return { body: { success: true, data: { apiKey: rotate(key, ctx.region, ctx.now, body) } } };
};

/** `PUT /v2/organization/api-keys/:apiKeyId` (spec 4.2). */
export const updateKey: Handler = (ctx) => {
  const key = orgKey(ctx);
  key.valid = checkKeyUpdate(ctx.body).valid;
  return { body: { success: true, data: keyView(key), deprecated: false } };
};
