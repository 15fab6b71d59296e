/** A JSON value, as the fakes put in tool arguments and structured outputs. */
export type FakeJson = null | boolean | number | string | FakeJson[] | { [key: string]: FakeJson };

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** The value a fake model gives a string property named `key` (ids look like order ids). */
const sampleString = (schema: Schema, key: string | undefined): string => {
  switch (schema.format) {
    case "email":
      return "user@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    case "uuid":
      return "3f1c2a4e-8b7d-4c6e-9a1f-2b3c4d5e6f70";
    case "date-time":
      return "2024-01-01T00:00:00Z";
    case "date":
      return "2024-01-01";
    case "time":
      return "00:00:00";
  }
  let s = key !== undefined && /id$/i.test(key) ? "A-1001" : "Orders ship in 2 days.";
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  while (s.length < min) s += "x";
  return s.slice(0, Math.max(min, Math.min(s.length, max)));
};

const sampleNumber = (schema: Schema, integer: boolean): number => {
  let n = 1;
  if (typeof schema.minimum === "number" && n < schema.minimum) n = schema.minimum;
  if (typeof schema.exclusiveMinimum === "number" && n <= schema.exclusiveMinimum) n = schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === "number" && n > schema.maximum) n = schema.maximum;
  if (typeof schema.exclusiveMaximum === "number" && n >= schema.exclusiveMaximum) n = schema.exclusiveMaximum - 1;
  return integer ? Math.ceil(n) : n;
};

/** Follows a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer into the root). */
const resolveRef = (root: Schema, ref: string): Schema | undefined => {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = isSchema(node) ? node[part] : undefined;
  }
  return isSchema(node) ? node : undefined;
};

/**
 * A deterministic value that satisfies a JSON Schema, as far as a fake model needs: types (also
 * OpenAPI's upper-case ones and type lists), `enum`, `const`, `default`, `examples`, `anyOf` /
 * `oneOf` (the first non-null branch), `allOf`, local `$ref`s, object properties (all of them, as
 * strict mode requires), array `minItems` / `maxItems`, string `format` / `minLength` /
 * `maxLength`, number bounds. `pattern` and `multipleOf` are not honoured. Strings whose property
 * name ends in "id" are `"A-1001"`, other strings `"Orders ship in 2 days."`, numbers 1 (within
 * bounds), booleans true. No schema, or an empty one, gives `{}`.
 */
export function sampleFromSchema(schema: unknown): FakeJson {
  if (!isSchema(schema) || Object.keys(schema).length === 0) return {};
  return sample(schema, schema, undefined, 0);
}

function sample(schema: Schema, root: Schema, key: string | undefined, depth: number): FakeJson {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    return target ? sample(target, root, key, depth + 1) : {};
  }
  if ("const" in schema) return schema.const as FakeJson;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? null;
  if ("default" in schema && schema.default !== undefined) return schema.default as FakeJson;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as FakeJson;
  for (const union of ["anyOf", "oneOf"] as const) {
    const branches = schema[union];
    if (Array.isArray(branches) && branches.length > 0) {
      const pick = branches.filter(isSchema).find((b) => b.type !== "null") ?? branches[0];
      return isSchema(pick) ? sample(pick, root, key, depth + 1) : null;
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Record<string, FakeJson> = {};
    for (const part of schema.allOf.filter(isSchema)) {
      const v = sample(part, root, key, depth + 1);
      if (isSchema(v)) Object.assign(merged, v);
    }
    return merged;
  }
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t): t is string => typeof t === "string").map((t) => t.toLowerCase());
  const type = types.find((t) => t !== "null") ?? types[0] ?? (isSchema(schema.properties) ? "object" : isSchema(schema.items) ? "array" : undefined);
  switch (type) {
    case "object": {
      const out: Record<string, FakeJson> = {};
      const props = isSchema(schema.properties) ? schema.properties : {};
      for (const [name, sub] of Object.entries(props)) if (isSchema(sub)) out[name] = sample(sub, root, name, depth + 1);
      return out;
    }
    case "array": {
      const items = isSchema(schema.items) ? schema.items : {};
      const min = typeof schema.minItems === "number" ? schema.minItems : 1;
      const max = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
      const count = Math.min(Math.max(min, 1), max);
      // Enum items: distinct values where there are enough (a set-like array stays valid).
      const choices = Array.isArray(items.enum) ? (items.enum as FakeJson[]) : undefined;
      return Array.from({ length: count }, (_, i) => (choices && choices.length > 0 ? choices[i % choices.length]! : sample(items, root, key, depth + 1)));
    }
    case "string":
      return sampleString(schema, key);
    case "integer":
      return sampleNumber(schema, true);
    case "number":
      return sampleNumber(schema, false);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}
