import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { SPAN_TYPE_ATTRIBUTE } from "../spans/span-data.js";
import { MAX_NAME_CHARS, truncateString } from "../spans/string-limits.js";
import { checkField, spanFieldRules } from "../spans/validate-fields.js";
import { aiSdk } from "./ai-sdk.js";
import { genAi } from "./genai.js";
import { openInference } from "./openinference.js";
import { openLlmetry } from "./openllmetry.js";
import type { Convention, FieldSource, FinishedSpan, Mapped } from "./types.js";

/** The conventions, most specific first: the first that claims a span reads it. */
export const conventions: readonly Convention[] = [openInference, openLlmetry, aiSdk, genAi];

const spanTypes = new Set<string>(["base", "llm", "retriever", "agent", "tool"]);

function read(source: FieldSource, span: FinishedSpan): JsonValue | undefined {
  for (const key of source.keys) {
    const v = span.attributes[key];
    if (source.as === "string" && typeof v === "string" && v !== "") return v;
    if (source.as === "count" && typeof v === "number") return v;
  }
  return undefined;
}

/**
 * What a foreign span is in our traces, decided from its final attributes, events and log
 * records by the first convention that claims it; undefined when none does (HTTP, DB and other
 * infrastructure spans: their kept descendants re-parent past them). Typed fields are checked
 * like those of our own spans, so a NaN token count or a huge model name never gets a trace
 * rejected. Never throws.
 */
export function interpret(span: FinishedSpan): Mapped | undefined {
  try {
    const declared = span.attributes[SPAN_TYPE_ATTRIBUTE];
    const convention = conventions.find((c) => c.claims(span));
    if (!convention && !(typeof declared === "string" && spanTypes.has(declared))) return undefined;
    const type: SpanType | undefined = typeof declared === "string" && spanTypes.has(declared) ? (declared as SpanType) : convention?.type(span);
    if (!type) return undefined;
    const fields: { [key: string]: JsonValue } = {};
    let input: JsonValue | undefined;
    let output: JsonValue | undefined;
    let error: string | undefined;
    if (convention) {
      for (const source of convention.fields) {
        if (source.types && !source.types.includes(type) || fields[source.field] !== undefined) continue;
        const v = read(source, span);
        if (v !== undefined) fields[source.field] = v;
      }
      input = convention.input?.(span, type);
      output = convention.output?.(span, type);
      Object.assign(fields, convention.extra?.(span, type));
      error = convention.error?.(span, type);
    }
    for (const [key, value] of Object.entries(fields)) {
      if (!Object.hasOwn(spanFieldRules, key)) continue;
      const checked = checkField(spanFieldRules[key]!, value, key).value;
      if (checked === undefined) delete fields[key];
      else fields[key] = checked;
    }
    const integration = convention?.name ?? "OpenTelemetry";
    fields.integration = integration;
    const name = convention?.spanName?.(span, type) ?? span.name;
    const mapped: Mapped = { type, name: truncateString(name, MAX_NAME_CHARS), integration, fields, input, output };
    if (error !== undefined) mapped.error = error;
    return mapped;
  } catch {
    return undefined;
  }
}
