/**
 * A record with no prototype: any string is a plain key, so ids such as `__proto__`,
 * `constructor` or `toString` neither read inherited members nor replace the prototype.
 * It serializes with `JSON.stringify` like any object.
 */
export type Dict<T> = Record<string, T>;

/** An empty {@link Dict}. */
export function dict<T>(): Dict<T> {
  return Object.create(null) as Dict<T>;
}

/**
 * A {@link Dict} holding the own enumerable entries of `source` (e.g. a record read back from
 * JSON, where `"__proto__"` is an own key), each value passed through `map`.
 */
export function toDict<T>(source: unknown, map: (value: T) => T = (v) => v): Dict<T> {
  const out = dict<T>();
  if (source === null || typeof source !== "object") return out;
  for (const [k, v] of Object.entries(source)) out[k] = map(v as T);
  return out;
}
