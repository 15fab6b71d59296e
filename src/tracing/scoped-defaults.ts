import { type Context, context, createContextKey } from "@opentelemetry/api";
import type { Runtime } from "../runtime/runtime.js";
import { activeRuntime } from "../runtime/configure.js";
import { warnFieldOnce } from "../spans/field-warnings.js";
import type { ToolCall } from "../protocol/types.js";
import { promptFields } from "./prompt-ref.js";
import type { PromptLink } from "../spans/fields.js";
import { describeError } from "../util/describe-error.js";
import { appliesTo, fieldsFor, type ScopedDefaults, testCaseDefaults } from "../spans/scoped-fields.js";
import { SCOPED_DEFAULTS_SLOT, type SpanData } from "../spans/span-data.js";
import { MAX_TAGS_PER_TRACE } from "../util/string-limits.js";
import { admitTags } from "../spans/trace-budget.js";
import { capturedRecord } from "./update.js";
import { checkFieldOrWarn, spanFieldRules, traceFieldRules } from "../spans/validate-fields.js";

/**
 * Defaults for every span created inside {@link withTracingContext}, integration and
 * OpenTelemetry-bridged spans included. Which span each applies to:
 * - `tags`: the trace of every span created inside (merged onto its tags);
 * - `metadata`: every span, under the span's own metadata (its own keys win);
 * - `metricCollection` and `prompt`: llm spans only, unless the span sets its own;
 * - `expectedOutput`, `context`, `retrievalContext`, `expectedTools` (test-case fields, what the
 *   online evaluation compares with): llm and agent spans, unless the span sets its own.
 */
export interface TracingDefaults {
  /** Single-turn metric collection for every llm span inside (the span's own wins). */
  metricCollection?: string;
  /** Tags merged onto the trace of every span created inside. */
  tags?: string[];
  /** Metadata every span inside starts with (the span's own keys win). */
  metadata?: Record<string, unknown>;
  /** The prompt every llm span inside used (the span's own wins). */
  prompt?: PromptLink;
  /** The expected output of every llm and agent span inside (test case; the span's own wins). */
  expectedOutput?: string;
  /** The ideal context of every llm and agent span inside (test case; the span's own wins). */
  context?: string[];
  /** The retrieval context of every llm and agent span inside (test case; the span's own wins). */
  retrievalContext?: string[];
  /** The tools every llm and agent span inside is expected to call (test case; the span's own wins). */
  expectedTools?: ToolCall[];
}

const SCOPE = createContextKey("evaltrace.scoped-defaults");

/** The defaults in force in a context (inner scopes merged over outer ones). */
export function scopedDefaultsOf(ctx: Context): ScopedDefaults | undefined {
  return ctx.getValue(SCOPE) as ScopedDefaults | undefined;
}

/**
 * Runs `fn` with defaults for every span created inside it, however deep and whoever creates
 * it (`observe`, `wrapOpenAI` and the other integrations, OpenTelemetry instrumentations seen
 * through `EvaltraceSpanProcessor`). Scopes nest: an inner `metricCollection` or `prompt`
 * replaces the outer one, `tags` and `metadata` merge (inner keys win). Returns what `fn`
 * returns, as it returns it; wrong default values are dropped with one warning each. Throws only
 * a `TypeError` when `fn` is not a function.
 *
 * @example
 * await withTracingContext({ metricCollection: "agent-quality", tags: ["beta"] }, () => agent.run(q));
 */
export function withTracingContext<T>(defaults: TracingDefaults, fn: () => T): T {
  if (typeof fn !== "function") throw new TypeError(`evaltrace: withTracingContext(defaults, fn) needs a function; got ${fn === null ? "null" : typeof fn}`);
  const rt = activeRuntime();
  if (!rt) return fn();
  let ctx: Context;
  try {
    const active = context.active();
    ctx = active.setValue(SCOPE, merge(scopedDefaultsOf(active), check(rt, defaults)));
  } catch (err) {
    rt.logger.error(`withTracingContext: defaults not applied: ${describeError(err)}`);
    return fn();
  }
  return context.with(ctx, fn);
}

function check(rt: Runtime, defaults: unknown): ScopedDefaults {
  const out: ScopedDefaults = {};
  if (defaults === null || typeof defaults !== "object" || Array.isArray(defaults)) {
    warnFieldOnce(rt.logger, "withTracingContext()", `withTracingContext needs an object of defaults; got ${defaults === null ? "null" : Array.isArray(defaults) ? "an array" : typeof defaults}; ignored`);
    return out;
  }
  const d = { ...(defaults as Record<string, unknown>) };
  const limits = rt.options.serializeLimits;
  if (d.metricCollection !== undefined) {
    const mc = checkFieldOrWarn(traceFieldRules.metricCollection!, d.metricCollection, "tracing context", "metricCollection", rt.logger, limits);
    if (typeof mc === "string") out.metricCollection = mc;
  }
  if (d.tags !== undefined) {
    const tags = checkFieldOrWarn(traceFieldRules.tags!, d.tags, "tracing context", "tags", rt.logger, limits);
    if (Array.isArray(tags)) out.tags = (tags as string[]).slice(0, MAX_TAGS_PER_TRACE);
  }
  if (d.metadata !== undefined) out.metadata = capturedRecord(rt, "tracing context", d.metadata);
  if (d.prompt !== undefined) out.prompt = promptFields(d.prompt, rt.logger, limits);
  for (const key of testCaseDefaults) {
    if (d[key] === undefined) continue;
    const value = checkFieldOrWarn(spanFieldRules[key]!, d[key], "tracing context", key, rt.logger, limits);
    if (value !== undefined) out.testCase = { ...out.testCase, [key]: value };
  }
  const known: readonly string[] = ["metricCollection", "tags", "metadata", "prompt", ...testCaseDefaults];
  for (const key of Object.keys(d)) {
    if (!known.includes(key)) warnFieldOnce(rt.logger, `tracing context.${key}`, `withTracingContext: unknown default ${JSON.stringify(key.slice(0, 40))} (${known.join(", ")}); ignored`);
  }
  return out;
}

function merge(outer: ScopedDefaults | undefined, inner: ScopedDefaults): ScopedDefaults {
  if (!outer) return inner;
  const out: ScopedDefaults = { ...outer };
  if (inner.metricCollection !== undefined) out.metricCollection = inner.metricCollection;
  if (inner.prompt !== undefined) out.prompt = inner.prompt;
  if (inner.testCase) out.testCase = { ...outer.testCase, ...inner.testCase };
  if (inner.tags) out.tags = [...new Set([...(outer.tags ?? []), ...inner.tags])].slice(0, MAX_TAGS_PER_TRACE);
  if (inner.metadata) out.metadata = { ...outer.metadata, ...inner.metadata };
  return out;
}

/** Merges the trace-level defaults (tags) onto the trace, once per tag. */
function tagTrace(rt: Runtime, traceId: string, tags: string[] | undefined): void {
  if (!tags || tags.length === 0) return;
  const rec = rt.heldTrace(traceId);
  if (!rec) return;
  const { kept } = admitTags(rec, tags, MAX_TAGS_PER_TRACE);
  if (kept.length > 0) rt.updateTrace(traceId, { tags: kept });
}

/** Applies the defaults of `ctx` to one of our spans as it starts (internal: `observe` and integrations). Never throws. */
export function applyScopedDefaults(rt: Runtime, traceId: string, data: SpanData, ctx: Context): void {
  const d = scopedDefaultsOf(ctx);
  if (!d) return;
  try {
    Object.assign(data.fields, fieldsFor(d, data.type, data.fields));
    if (d.metadata && appliesTo.metadata.has(data.type)) data.metadata = { ...d.metadata, ...data.metadata };
    tagTrace(rt, traceId, d.tags);
  } catch (err) {
    rt.logger.error(`tracing context defaults not applied: ${describeError(err)}`);
  }
}

/**
 * Notes the defaults of `ctx` on a span of another instrumentation as it starts (its type is
 * known only when it ends); tags go onto its trace at once. Never throws.
 */
export function rememberScopedDefaults(rt: Runtime, span: object & { spanContext(): { traceId: string } }, ctx: Context): void {
  const d = scopedDefaultsOf(ctx);
  if (!d) return;
  (span as { [SCOPED_DEFAULTS_SLOT]?: ScopedDefaults })[SCOPED_DEFAULTS_SLOT] = d;
  try {
    tagTrace(rt, span.spanContext().traceId, d.tags);
  } catch {
    // Never break the app's tracing pipeline.
  }
}
