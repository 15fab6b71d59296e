import { checkParsedFields, type Field, isPlainObject, type Shape, SchemaError } from "../protocol/schema.js";
import { badRequest } from "./http-error.js";
import type { RouteContext } from "./context.js";

/** A field path with list positions dropped (`body.llmSpans[3].traceUuid` -> `body.llmSpans[].traceUuid`), so a rule is noted once. */
const rulePath = (path: string) => path.replace(/\[\d+\]/g, "[]");

/**
 * Checks an object against the spec's shape (`strictShape`) in strict mode; in lenient mode
 * against `lenientShape` (what the live service accepts), ignoring unknown fields. Each unknown
 * field name and each value that only the lenient shape accepts is noted for the request log.
 * Unknown fields are found with own-property checks, so `constructor` or `toString` are unknown
 * fields like any other; `__proto__` is rejected in lenient mode too.
 */
export function checkFields(value: unknown, strictShape: Shape, lenientShape: Shape, path: string, ctx: Pick<RouteContext, "strict" | "note">): asserts value is Record<string, unknown> {
  if (!isPlainObject(value)) throw new SchemaError(`${path} must be an object`);
  const shape = ctx.strict ? strictShape : lenientShape;
  const keys = Object.keys(value);
  // The known fields: `value` itself while every key so far is known (the common case, no copy).
  let known = value;
  let knownKeys = keys;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (Object.hasOwn(shape, key)) {
      if (known !== value) {
        known[key] = value[key];
        knownKeys.push(key);
      }
      continue;
    }
    // `__proto__` in either mode: routes copy a record's fields by assignment, where that key
    // would set the prototype of the copy (hidden, unchecked fields that lists show).
    if (ctx.strict || key === "__proto__") throw badRequest(`unknown field ${path}.${key}`);
    ctx.note(`ignored unknown field ${rulePath(path)}.${key} (strict mode rejects it)`);
    if (known === value) {
      known = {};
      knownKeys = keys.slice(0, i);
      for (const k of knownKeys) known[k] = value[k];
    }
  }
  checkParsedFields(known, knownKeys, shape, path);
  if (ctx.strict) return;
  for (const [key, field] of relaxedFields(strictShape, lenientShape)) {
    const v = known[key];
    if (v === undefined) continue;
    try {
      field.check(v, `${path}.${key}`);
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      ctx.note(`accepted ${rulePath(err.message)} as the live service does (strict mode rejects it)`);
    }
  }
}

const relaxedCache = new WeakMap<Shape, { strict: Shape; fields: [string, Field][] }>();

/**
 * The fields of `strictShape` that `lenientShape` checks otherwise, in the strict shape's order:
 * the only ones a value that passed the lenient checks can fail (a field both check alike passed).
 */
function relaxedFields(strictShape: Shape, lenientShape: Shape): [string, Field][] {
  const cached = relaxedCache.get(lenientShape);
  if (cached?.strict === strictShape) return cached.fields;
  const fields = Object.entries(strictShape).filter(([key, field]) => Object.hasOwn(lenientShape, key) && lenientShape[key] !== field);
  relaxedCache.set(lenientShape, { strict: strictShape, fields });
  return fields;
}
