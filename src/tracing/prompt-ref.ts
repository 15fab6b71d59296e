import type { Logger } from "../logger.js";
import { warnFieldOnce } from "../spans/field-warnings.js";
import type { SerializeLimits } from "../spans/serialize.js";
import type { JsonValue } from "../spans/json-value.js";
import { pickSpanFields } from "../spans/validate-fields.js";

/** Which field of a reference fills which llm span field of the spec: data, read in order. */
const promptFieldMap = [
  ["alias", "promptAlias"],
  ["version", "promptVersion"],
  ["label", "promptLabel"],
  ["hash", "promptCommitHash"],
] as const;

/**
 * The llm span fields a prompt reference fills (`promptAlias`, `promptVersion`, `promptLabel`,
 * `promptCommitHash`), checked like any span field; undefined with one warning when the value
 * names no prompt (no alias and no hash) or cannot be read. Never throws.
 */
export function promptFields(value: unknown, logger: Logger, limits: SerializeLimits): { [key: string]: JsonValue } | undefined {
  const warn = (why: string) => {
    warnFieldOnce(logger, "span.prompt", `span field prompt ${why}; dropped`);
    return undefined;
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) return warn(`must be an object such as { alias, version } or what client.prompts.push returned; got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`);
  const raw: Record<string, unknown> = {};
  try {
    for (const [from, to] of promptFieldMap) {
      const v = (value as Record<string, unknown>)[from];
      if (v !== undefined && v !== null) raw[to] = typeof v === "number" && Number.isFinite(v) ? String(v) : v;
    }
  } catch {
    return warn("could not be read");
  }
  const fields = pickSpanFields("llm", raw, logger, limits);
  if (fields.promptAlias === undefined && fields.promptCommitHash === undefined) return warn("names no prompt (it needs an alias or a hash)");
  return fields;
}
