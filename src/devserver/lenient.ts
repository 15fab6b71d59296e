import { checkObject, isPlainObject, type Shape, SchemaError } from "../spec/schema.js";
import { badRequest } from "./http-error.js";
import type { RouteContext } from "./context.js";

/** A field path with list positions dropped (`body.llmSpans[3].traceUuid` -> `body.llmSpans[].traceUuid`), so a rule is noted once. */
const rulePath = (path: string) => path.replace(/\[\d+\]/g, "[]");

/**
 * Checks an object against the spec's shape (`strictShape`) in strict mode; in lenient mode
 * against `lenientShape` (what the live service accepts), ignoring unknown fields. Each unknown
 * field name and each value that only the lenient shape accepts is noted for the request log.
 * Unknown fields are found with own-property checks, so `constructor` or `toString` are unknown
 * fields like any other.
 */
export function checkFields(value: unknown, strictShape: Shape, lenientShape: Shape, path: string, ctx: Pick<RouteContext, "strict" | "note">): asserts value is Record<string, unknown> {
  if (!isPlainObject(value)) throw new SchemaError(`${path} must be an object`);
  const shape = ctx.strict ? strictShape : lenientShape;
  const known: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) {
      known[key] = value[key];
      continue;
    }
    if (ctx.strict) throw badRequest(`unknown field ${path}.${key}`);
    ctx.note(`ignored unknown field ${rulePath(path)}.${key} (strict mode rejects it)`);
  }
  checkObject(known, shape, path);
  if (ctx.strict) return;
  for (const [key, field] of Object.entries(strictShape)) {
    const v = known[key];
    if (v === undefined || !Object.hasOwn(lenientShape, key)) continue;
    try {
      field.check(v, `${path}.${key}`);
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      ctx.note(`accepted ${rulePath(err.message)} as the live service does (strict mode rejects it)`);
    }
  }
}
