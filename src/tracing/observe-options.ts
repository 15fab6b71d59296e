import type { Runtime } from "../runtime/runtime.js";
import { capture } from "./capture.js";
import { warnFieldOnce, warnUnknownField } from "../spans/field-warnings.js";
import type { SpanType } from "../protocol/types.js";
import { promptFields } from "./prompt-ref.js";
import type { JsonValue } from "../spans/json-value.js";
import { checkFieldOrWarn, checkRecord, pickSpanFields, spanFieldRules, spanNameRule } from "../spans/validate-fields.js";
import { describeValue } from "../util/describe-value.js";

const spanTypes: ReadonlySet<string> = new Set<SpanType>(["base", "llm", "retriever", "agent", "tool"]);

/** Every key `observe` options may have. */
const optionNames: ReadonlySet<string> = new Set(["type", "name", "metadata", "apiKey", "prompt", ...Object.keys(spanFieldRules)]);

/** What `observe(options)` keeps at definition: a copy, so later changes to the object do not leak in. */
export interface ObserveOptionsSnapshot {
  readonly type: SpanType;
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * Checks `observe` options at definition time, where a mistake is configuration: options that
 * are not an object, cannot be read, or have an unknown `type` are a `TypeError`. Field values
 * are checked later, at the first call (see {@link prepareObserveOptions}), since a wrong value
 * must not break the app.
 */
export function snapshotObserveOptions(options: unknown): ObserveOptionsSnapshot {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    const got = options === null ? "null" : Array.isArray(options) ? "an array" : typeof options;
    throw new TypeError(`evaltrace: observe options must be an object; got ${got}`);
  }
  let values: Record<string, unknown>;
  try {
    values = { ...(options as Record<string, unknown>) };
  } catch (err) {
    throw new TypeError(`evaltrace: observe options could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const type = values.type ?? "base";
  if (typeof type !== "string" || !spanTypes.has(type)) {
    throw new TypeError(`evaltrace: observe option \`type\` must be one of base, llm, retriever, agent, tool; got ${describeValue(type)}`);
  }
  return { type: type as SpanType, values };
}


/** Options after their values were checked: what every span of the wrapped function starts with. */
export interface PreparedObserveOptions {
  /** The span name, when the options gave a usable one. */
  name?: string;
  /** Type fields, test-case fields, metricCollection and llmTestCase, JSON-safe and valid. */
  fields: { [key: string]: JsonValue };
  metadata?: { [key: string]: JsonValue };
  /** The `apiKey` option as given: checked (and never logged) when a root span routes its trace. */
  apiKey?: unknown;
}

/**
 * Checks the values of `observe` options once, at the first traced call: a wrong value is
 * dropped or repaired with one warning per field, an unknown key (a typo such as
 * `metricColection`) is reported once with the closest option name. Never throws.
 */
export function prepareObserveOptions(options: ObserveOptionsSnapshot, rt: Runtime): PreparedObserveOptions {
  const { values, type } = options;
  const { logger } = rt;
  const limits = rt.options.serializeLimits;
  for (const key of Object.keys(values)) if (!optionNames.has(key)) warnUnknownField(logger, "observe options", key, optionNames);
  const prepared: PreparedObserveOptions = { fields: pickSpanFields(type, values, logger, limits) };
  if (values.prompt !== undefined) {
    if (type === "llm") Object.assign(prepared.fields, promptFields(values.prompt, logger, limits));
    else warnFieldOnce(logger, `observe option.prompt:${type}`, `observe option prompt applies to llm spans; ignored on a ${type} span`);
  }
  if (values.apiKey !== undefined) prepared.apiKey = values.apiKey;
  const name = checkFieldOrWarn(spanNameRule, values.name, "observe option", "name", logger, limits);
  if (typeof name === "string") prepared.name = name;
  if (values.metadata !== undefined && values.metadata !== null) {
    const captured = capture(rt, values.metadata);
    const checked = captured === undefined ? undefined : checkRecord(captured, "metadata");
    if (checked?.issue) warnFieldOnce(logger, "observe option.metadata", `observe option ${checked.issue}${checked.value === undefined ? "; dropped" : ""}`);
    if (checked?.value !== undefined) prepared.metadata = checked.value as { [key: string]: JsonValue };
  }
  return prepared;
}
