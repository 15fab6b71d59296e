import type { Span } from "@opentelemetry/api";
import { spanUuid, traceUuid } from "../spans/ids.js";
import type { SafeTraceUpdate } from "../traces/trace-assembler.js";
import type { Logger } from "../logger.js";
import type { Runtime } from "../runtime/runtime.js";
import { activeRuntime, runtimeFor } from "../runtime/configure.js";
import { capture } from "./capture.js";
import { currentObservedSpan } from "./context.js";
import { warnFieldOnce, warnUnknownField } from "../spans/field-warnings.js";
import type { SpanUpdate, TraceUpdate } from "../spans/fields.js";
import { describeError } from "../util/describe-error.js";
import type { JsonValue } from "../spans/json-value.js";
import { getSpanData, type SpanData } from "../spans/span-data.js";
import { promptFields } from "./prompt-ref.js";
import { MAX_TAGS_PER_TRACE } from "../util/string-limits.js";
import { routeTrace } from "./trace-key.js";
import { admitMetadata, admitTags, mergeBounded } from "../spans/trace-budget.js";
import { checkFieldOrWarn, checkRecord, pickSpanFields, spanFieldRules, spanNameRule, traceFieldRules } from "../spans/validate-fields.js";

/** The innermost observed span, recording, and its runtime (internal: updates, handles, typed helpers). */
export function current() {
  const span = currentObservedSpan();
  const rt = runtimeFor(span);
  if (!rt || !span?.isRecording()) return undefined;
  return { rt, span };
}

/** A captured (masked, JSON-safe) metadata object, or undefined with a warning. */
export function capturedRecord(rt: Runtime, scope: string, value: unknown): { [key: string]: JsonValue } | undefined {
  const captured = capture(rt, value);
  if (captured === undefined) return undefined;
  const checked = checkRecord(captured, "metadata");
  if (checked.issue) warnFieldOnce(rt.logger, `${scope}.metadata`, `${scope} field ${checked.issue}${checked.value === undefined ? "; dropped" : ""}`);
  return checked.value as { [key: string]: JsonValue } | undefined;
}

function reportDropped(logger: Logger, scope: string, field: string, dropped: number, limit: string): void {
  if (dropped > 0) warnFieldOnce(logger, `${scope}.${field}:limit`, `${scope} field ${field}: ${dropped} value(s) beyond ${limit} dropped`);
}

function isFieldObject(fields: unknown, rt: Runtime, fn: string): fields is Record<string, unknown> {
  if (fields !== null && typeof fields === "object" && !Array.isArray(fields)) return true;
  warnFieldOnce(rt.logger, `${fn}()`, `${fn} needs an object of fields; got ${fields === null ? "null" : Array.isArray(fields) ? "an array" : typeof fields}; ignored`);
  return false;
}

type SpanSetter = (rt: Runtime, span: Span, data: SpanData, value: unknown) => void;

/** What `updateCurrentSpan` does with each field that is not a checked span field. */
const spanSetters: { readonly [field: string]: SpanSetter } = {
  name(rt, span, _data, value) {
    const name = checkFieldOrWarn(spanNameRule, value, "span", "name", rt.logger, rt.options.serializeLimits);
    if (typeof name === "string") span.updateName(name);
  },
  input(rt, _span, data, value) {
    const input = capture(rt, value);
    if (input !== undefined) data.input = input;
    data.inputPinned = true;
  },
  output(rt, _span, data, value) {
    const output = capture(rt, value);
    if (output !== undefined) data.output = output;
    data.outputPinned = true;
  },
  prompt(rt, _span, data, value) {
    if (data.type !== "llm") {
      warnFieldOnce(rt.logger, `span.prompt:${data.type}`, `span field prompt applies to llm spans; ignored on a ${data.type} span`);
      return;
    }
    const fields = promptFields(value, rt.logger, rt.options.serializeLimits);
    if (fields) Object.assign(data.fields, fields);
  },
  metadata(rt, _span, data, value) {
    const meta = capturedRecord(rt, "span", value);
    if (!meta) return;
    const existing = data.metadata ?? {};
    const { kept, dropped } = mergeBounded(new Set(Object.keys(existing)), existing, meta, rt.options.serializeLimits.maxItems);
    data.metadata = kept;
    reportDropped(rt.logger, "span", "metadata", dropped, `${rt.options.serializeLimits.maxItems} keys (serializeLimits.maxItems)`);
  },
};

const spanUpdateNames: ReadonlySet<string> = new Set([...Object.keys(spanSetters), ...Object.keys(spanFieldRules)]);

/**
 * Sets fields of the innermost observed span: input, output, metadata (merged), name, the
 * span type's own fields, `metricCollection`, `llmTestCase` and test-case fields. A wrong value
 * is dropped or repaired with one warning per field (the rest of the update still applies, and
 * the trace is never rejected for it); an unknown key is reported once. Outside any span, or on
 * a span that already ended, it does nothing. Never throws.
 *
 * @example
 * updateCurrentSpan({ inputTokenCount: 12, outputTokenCount: 40, llmTestCase: { input: q, actualOutput: out } });
 */
export function updateCurrentSpan(fields: SpanUpdate): void {
  const cur = current();
  if (!cur) {
    activeRuntime()?.logger.debug("updateCurrentSpan outside an observed span: ignored");
    return;
  }
  updateSpanOf(cur.rt, cur.span, fields, "updateCurrentSpan");
}

/** Applies a span update to `span` (internal: `updateCurrentSpan`, span handles, typed helpers). Never throws. */
export function updateSpanOf(rt: Runtime, span: Span, fields: SpanUpdate, fn: string): void {
  try {
    const data = getSpanData(span);
    if (!data || data.ended || !isFieldObject(fields, rt, fn)) return;
    const typed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      const setter = Object.hasOwn(spanSetters, key) ? spanSetters[key] : undefined;
      if (setter) setter(rt, span, data, value);
      else if (Object.hasOwn(spanFieldRules, key)) typed[key] = value;
      else warnUnknownField(rt.logger, fn, key, spanUpdateNames);
    }
    Object.assign(data.fields, pickSpanFields(data.type, typed, rt.logger, rt.options.serializeLimits));
  } catch (err) {
    rt.logger.error(`${fn} failed: ${describeError(err)}`);
  }
}

type TraceSetter = (rt: Runtime, traceRecord: object | undefined, value: unknown) => JsonValue | undefined;

/** What `updateCurrentTrace` does with the fields that need more than their rule. */
const traceSetters: { readonly [field: string]: TraceSetter } = {
  input: (rt, _rec, value) => capture(rt, value),
  output: (rt, _rec, value) => capture(rt, value),
  metadata(rt, rec, value) {
    const meta = capturedRecord(rt, "trace", value);
    if (!meta || !rec) return meta;
    const maxKeys = rt.options.serializeLimits.maxItems;
    const { kept, dropped } = admitMetadata(rec, meta, maxKeys);
    reportDropped(rt.logger, "trace", "metadata", dropped, `${maxKeys} keys per trace (serializeLimits.maxItems)`);
    return kept;
  },
  tags(rt, rec, value) {
    const tags = checkFieldOrWarn(traceFieldRules.tags!, value, "trace", "tags", rt.logger, rt.options.serializeLimits);
    if (!Array.isArray(tags) || !rec) return tags;
    const { kept, dropped } = admitTags(rec, tags as string[], MAX_TAGS_PER_TRACE);
    reportDropped(rt.logger, "trace", "tags", dropped, `${MAX_TAGS_PER_TRACE} distinct tags per trace`);
    return kept.length > 0 ? kept : undefined;
  },
};

/** Trace update fields that act on the trace rather than set a field of it. */
const traceActions = ["drop", "apiKey"] as const;

const traceUpdateNames: ReadonlySet<string> = new Set([...Object.keys(traceSetters), ...Object.keys(traceFieldRules), ...traceActions]);

/**
 * Sets fields of the current trace: `name`, `input`, `output`, `threadId`, `userId`, `tags`
 * (appended; at most {@link MAX_TAGS_PER_TRACE} distinct), `metadata` (merged), `environment`,
 * `metricCollection`, `llmTestCase` and test-case fields. A wrong value is dropped or repaired
 * with one warning per field, so the trace still goes out; an unknown key is reported once.
 * After the trace was sent, `output`, `environment`, `metadata` and `tags` still go out as a
 * `PUT`; the others are fixed by then (spec 4.6). Never throws.
 */
export function updateCurrentTrace(fields: TraceUpdate): void {
  const cur = current();
  if (!cur) {
    activeRuntime()?.logger.debug("updateCurrentTrace outside an observed span: ignored");
    return;
  }
  updateTraceOf(cur.rt, cur.span.spanContext().traceId, fields, "updateCurrentTrace");
}

/** Applies a trace update to the trace `traceId` (internal: `updateCurrentTrace`, trace handles). Never throws. */
export function updateTraceOf(rt: Runtime, traceId: string, fields: TraceUpdate, fn: string): void {
  try {
    if (!isFieldObject(fields, rt, fn)) return;
    // The key first: the other fields of the same update may be the last before the trace goes.
    if (fields.apiKey !== undefined) routeTrace(rt, traceId, fields.apiKey, "trace");
    const rec = rt.heldTrace(traceId);
    const safe: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined || key === "apiKey") continue;
      if (key === "drop") {
        if (value === true) dropTrace(rt, traceId);
        else if (value !== false) warnFieldOnce(rt.logger, "trace.drop", `trace field drop must be true or false; got ${typeof value}; ignored`);
        continue;
      }
      const setter = Object.hasOwn(traceSetters, key) ? traceSetters[key] : undefined;
      const rule = Object.hasOwn(traceFieldRules, key) ? traceFieldRules[key] : undefined;
      let checked: JsonValue | undefined;
      if (setter) checked = setter(rt, rec, value);
      else if (rule) checked = checkFieldOrWarn(rule, value, "trace", key, rt.logger, rt.options.serializeLimits);
      else warnUnknownField(rt.logger, fn, key, traceUpdateNames);
      if (checked !== undefined) safe[key] = checked;
    }
    if (Object.keys(safe).length > 0) rt.updateTrace(traceId, safe as SafeTraceUpdate);
  } catch (err) {
    rt.logger.error(`${fn} failed: ${describeError(err)}`);
  }
}

/** Drops a trace for the app (`drop: true`): nothing of it is sent; a drop that came too late says so once. */
function dropTrace(rt: Runtime, traceId: string): void {
  const outcome = rt.dropTrace(traceId);
  if (outcome === "partly") {
    warnFieldOnce(rt.logger, "trace.drop:late", `trace ${traceUuid(traceId)} was dropped after it was sent: only what was still to come (late spans, updates) is dropped`);
  } else if (outcome === "unknown") {
    warnFieldOnce(rt.logger, "trace.drop:unknown", `trace ${traceUuid(traceId)} was dropped after it was delivered: nothing more of it will be sent`);
  } else if (outcome === "again") {
    rt.logger.debug(`trace ${traceUuid(traceId)} was already dropped`);
  }
}

/** The uuid the service knows the current trace by, or undefined outside an observed span. */
export function currentTraceUuid(): string | undefined {
  const span = currentObservedSpan();
  return span?.isRecording() ? traceUuid(span.spanContext().traceId) : undefined;
}

/** The uuid the service knows the current span by, or undefined outside an observed span. */
export function currentSpanUuid(): string | undefined {
  const span = currentObservedSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return spanUuid(traceId, spanId);
}
