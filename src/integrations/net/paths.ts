/**
 * The little path language of the net's endpoint tables: segments separated by `/`; a key or an
 * index steps into an object or a list, `*` steps into every item of a list, and `key=value`
 * keeps the value only when its `key` equals `value` (`type=tool_use`). `""` is the value itself.
 *
 * @example
 * pick({ choices: [{ message: { content: "hi" } }] }, "choices/0/message/content") // ["hi"]
 */
export type Path = string;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

function step(values: unknown[], segment: string): unknown[] {
  const out: unknown[] = [];
  const eq = segment.indexOf("=");
  for (const v of values) {
    if (segment === "*") {
      if (Array.isArray(v)) out.push(...v);
    } else if (eq > 0) {
      if (isRecord(v) && String(v[segment.slice(0, eq)]) === segment.slice(eq + 1)) out.push(v);
    } else if (isRecord(v)) {
      const next = Array.isArray(v) ? v[Number(segment)] : v[segment];
      if (next !== undefined && next !== null) out.push(next);
    }
  }
  return out;
}

/** Every value at `path` in `value` (none: an empty list). Never throws. */
export function pick(value: unknown, path: Path): unknown[] {
  if (path === "") return value === undefined || value === null ? [] : [value];
  let values: unknown[] = [value];
  for (const segment of path.split("/")) {
    values = step(values, segment);
    if (values.length === 0) break;
  }
  return values;
}

/** The first value found at any of `paths`, in order. */
export function first(value: unknown, paths: readonly Path[] | undefined): unknown {
  for (const path of paths ?? []) {
    const found = pick(value, path)[0];
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The strings found at every one of `paths`, in order. */
export function strings(value: unknown, paths: readonly Path[] | undefined): string[] {
  return (paths ?? []).flatMap((path) => pick(value, path).filter((v): v is string => typeof v === "string"));
}
