import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "./json-value.js";
import { SCOPED_DEFAULTS_SLOT } from "./span-data.js";

// The defaults of `withTracingContext` as data: which span types each applies to, and how they
// fill a span's fields below its own. The front door (tracing/scoped-defaults.ts) checks and
// scopes them; this is the part every layer reads.

/** The test-case defaults, and the span types they apply to. */
export const testCaseDefaults = ["expectedOutput", "context", "retrievalContext", "expectedTools"] as const;

/** Defaults as checked once, when the scope opens: JSON-safe and valid. */
export interface ScopedDefaults {
  /** Test-case fields (`expectedOutput`, ...), checked. */
  testCase?: { [key: string]: JsonValue };
  metricCollection?: string;
  tags?: string[];
  metadata?: { [key: string]: JsonValue };
  prompt?: { [key: string]: JsonValue };
}

/** Which span types each default applies to (tags go to the trace, whatever the span). */
export const appliesTo: { readonly [F in "metricCollection" | "prompt" | "metadata" | "testCase"]: ReadonlySet<SpanType> } = {
  metricCollection: new Set<SpanType>(["llm"]),
  testCase: new Set<SpanType>(["llm", "agent"]),
  prompt: new Set<SpanType>(["llm"]),
  metadata: new Set<SpanType>(["base", "llm", "retriever", "agent", "tool"]),
};

/** The fields of `type` the defaults give, below what `own` already has (the span's own win). */
export function fieldsFor(d: ScopedDefaults, type: SpanType, own: { [key: string]: unknown }): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  if (d.metricCollection !== undefined && appliesTo.metricCollection.has(type) && own.metricCollection === undefined) out.metricCollection = d.metricCollection;
  if (d.prompt && appliesTo.prompt.has(type) && own.promptAlias === undefined && own.promptCommitHash === undefined) Object.assign(out, d.prompt);
  if (d.testCase && appliesTo.testCase.has(type)) {
    for (const [key, value] of Object.entries(d.testCase)) if (own[key] === undefined) out[key] = value;
  }
  return out;
}

/**
 * Applies the defaults a span of another instrumentation started under to the fields it was read
 * as (its mapped values win), `metadata` among them.
 */
export function applyScopedForeignDefaults(span: object, type: SpanType, fields: { [key: string]: JsonValue }): void {
  const d = (span as { [SCOPED_DEFAULTS_SLOT]?: ScopedDefaults })[SCOPED_DEFAULTS_SLOT];
  if (!d) return;
  Object.assign(fields, fieldsFor(d, type, fields));
  if (d.metadata && appliesTo.metadata.has(type)) fields.metadata = { ...d.metadata, ...(fields.metadata as { [key: string]: JsonValue } | undefined) };
}
