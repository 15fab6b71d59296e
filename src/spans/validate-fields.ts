import type { Logger } from "../logger.js";
import { warnFieldOnce } from "./field-warnings.js";
import { type testCaseFieldNames, typeFieldNames } from "./fields.js";
import type { SpanType } from "../protocol/types.js";
import { defaultSerializeLimits, type SerializeLimits, toJsonValue, toText } from "./serialize.js";
import { describeError } from "../util/describe-error.js";
import type { JsonValue } from "./json-value.js";
import { MAX_ID_CHARS, MAX_LABEL_CHARS, MAX_METADATA_KEY_CHARS, MAX_NAME_CHARS, MAX_TAG_CHARS, truncateString } from "../util/string-limits.js";

/**
 * How the value of one field is checked and, where the intent is clear, repaired, so that what
 * goes out always passes the service's validation (`src/protocol/schema.ts` and the trace route of
 * the emulator hold the rules):
 * - `label`: a non-empty string (not only spaces), cut at `cap`; a number becomes its string.
 * - `text`: a string bounded by `SerializeLimits.maxStringChars`; any other value becomes its JSON text.
 * - `count`: a non-negative integer; a non-negative fraction is rounded.
 * - `amount`: a non-negative finite number.
 * - `enum`: one of `values` (case-insensitive).
 * - `labels` / `texts`: a list of those; a lone string becomes a one-item list, other items their text.
 * - `record`: an object, made JSON-safe, keys cut at {@link MAX_METADATA_KEY_CHARS}.
 * - `any`: any value, made JSON-safe.
 * - `object`: an object of known fields (`shape`); unknown fields are dropped.
 * - `list`: a list of `item`; a lone item becomes a one-item list.
 */
export type FieldRule =
  | { readonly kind: "label"; readonly cap: number }
  | { readonly kind: "text" }
  | { readonly kind: "count" }
  | { readonly kind: "amount" }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "labels"; readonly cap: number }
  | { readonly kind: "texts" }
  | { readonly kind: "record" }
  | { readonly kind: "any" }
  | { readonly kind: "object"; readonly shape: Shape }
  | { readonly kind: "list"; readonly item: FieldRule };

/** The fields of an `object` rule; a missing required field drops the whole object. */
export type Shape = { readonly [field: string]: { readonly rule: FieldRule; readonly required?: boolean } };

/** What checking a value gave: the value to send (undefined: dropped), and what was wrong. */
export interface FieldOutcome {
  value: JsonValue | undefined;
  /** Why the value was dropped or how it was repaired; unset when it was fine as it was. */
  issue?: string;
}

const label = (cap: number): FieldRule => ({ kind: "label", cap });

/** The environments the live service takes. */
export const ENVIRONMENTS: readonly string[] = ["production", "development", "staging", "testing"];
const text: FieldRule = { kind: "text" };
const count: FieldRule = { kind: "count" };
const amount: FieldRule = { kind: "amount" };
const texts: FieldRule = { kind: "texts" };

/** The tool-call object of test cases (spec 2.7): the service rejects any other field. */
const toolCallShape: Shape = {
  name: { rule: label(MAX_LABEL_CHARS), required: true },
  type: { rule: { kind: "enum", values: ["FUNCTION", "MCP"] } },
  description: { rule: text },
  inputParameters: { rule: { kind: "record" } },
  output: { rule: { kind: "any" } },
  reasoning: { rule: text },
};
const toolCalls: FieldRule = { kind: "list", item: { kind: "object", shape: toolCallShape } };

/** Test-case fields a span or a trace carries beside `llmTestCase`. */
const testCaseFieldRules = {
  expectedOutput: text,
  retrievalContext: texts,
  context: texts,
  toolsCalled: toolCalls,
  expectedTools: toolCalls,
} as const satisfies Record<(typeof testCaseFieldNames)[number], FieldRule>;

/** The single-turn test case of an online evaluation: `input` and `actualOutput` required. */
const llmTestCaseRule: FieldRule = {
  kind: "object",
  shape: {
    input: { rule: text, required: true },
    actualOutput: { rule: text, required: true },
    ...Object.fromEntries(Object.entries(testCaseFieldRules).map(([k, rule]) => [k, { rule }])),
  },
};

/** Every span field `observe`, `updateCurrentSpan` and manual spans accept, with its rule. */
export const spanFieldRules: { readonly [field: string]: FieldRule } = {
  model: label(MAX_LABEL_CHARS),
  provider: label(MAX_LABEL_CHARS),
  inputTokenCount: count,
  outputTokenCount: count,
  costPerInputToken: amount,
  costPerOutputToken: amount,
  promptAlias: label(MAX_LABEL_CHARS),
  promptVersion: label(MAX_LABEL_CHARS),
  promptLabel: label(MAX_LABEL_CHARS),
  promptCommitHash: label(MAX_LABEL_CHARS),
  embedder: label(MAX_LABEL_CHARS),
  topK: count,
  chunkSize: count,
  availableTools: { kind: "labels", cap: MAX_LABEL_CHARS },
  agentHandoffs: { kind: "labels", cap: MAX_LABEL_CHARS },
  description: text,
  metricCollection: label(MAX_LABEL_CHARS),
  llmTestCase: llmTestCaseRule,
  ...testCaseFieldRules,
};

/** The rule of a span's name (`observe({ name })`, `updateCurrentSpan({ name })`). */
export const spanNameRule: FieldRule = label(MAX_NAME_CHARS);

/**
 * Every trace field `updateCurrentTrace` accepts, with its rule, except `input`, `output` and
 * `metadata` (captured values: masked, then bounded by `SerializeLimits`).
 */
export const traceFieldRules: { readonly [field: string]: FieldRule } = {
  name: label(MAX_NAME_CHARS),
  threadId: label(MAX_ID_CHARS),
  userId: label(MAX_ID_CHARS),
  // The live service takes only these (wire-format notes); keep a custom label in metadata or tags.
  environment: { kind: "enum", values: ENVIRONMENTS },
  tags: { kind: "labels", cap: MAX_TAG_CHARS },
  metricCollection: label(MAX_LABEL_CHARS),
  llmTestCase: llmTestCaseRule,
  ...testCaseFieldRules,
};

/** Type fields: they apply to spans of their own type only. */
const typeFieldOwner = new Map<string, SpanType>(
  (Object.entries(typeFieldNames) as [SpanType, readonly string[]][]).flatMap(([type, names]) => names.map((n) => [n, type] as const)),
);

interface Walk {
  limits: SerializeLimits;
  /** Characters of text left for the whole field. */
  budget: number;
}

type Repairer<R extends FieldRule> = (value: unknown, rule: R, walk: Walk, path: string) => FieldOutcome;

/** A dropped value; `issue` starts with the field's path, like every issue. */
const drop = (path: string, problem: string): FieldOutcome => ({ value: undefined, issue: `${path} ${problem}` });

/** An issue that says the value was dropped, said once. */
const asDropped = (issue: string): string => (issue.endsWith("dropped") ? issue : `${issue}; dropped`);

/** Text from a document-like object (LangChain `Document`, `{ text }`, `{ content }`), else its JSON. */
const documentTextKeys = ["pageContent", "text", "content"] as const;

function boundedText(s: string, walk: Walk): string {
  const out = truncateString(s, Math.min(walk.limits.maxStringChars, Math.max(walk.budget, 0)));
  walk.budget -= out.length;
  return out;
}

function textOf(value: unknown, walk: Walk): string | undefined {
  switch (typeof value) {
    case "string":
      return boundedText(value, walk);
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "object": {
      if (value === null) return undefined;
      for (const key of documentTextKeys) {
        const t = (value as Record<string, unknown>)[key];
        if (typeof t === "string") return boundedText(t, walk);
      }
      return boundedText(toText(value, walk.limits), walk);
    }
    default:
      return undefined;
  }
}

function labelOf(value: unknown, cap: number, path: string): FieldOutcome {
  if (typeof value === "string") {
    // Checked after NULs were stripped: "\u0000" is empty on the wire.
    const out = truncateString(value, cap);
    if (out.trim().length === 0) return drop(path, "must be a non-empty string");
    return value.length > cap ? { value: out, issue: `${path} is longer than ${cap} characters; truncated` } : { value: out };
  }
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "bigint") {
    return { value: String(value), issue: `${path} must be a string; converted` };
  }
  return drop(path, "must be a non-empty string");
}

/** The first `maxItems` items of a list, or undefined when `value` is not one. */
function listItems(value: unknown, walk: Walk, path: string): { items: unknown[]; issue?: string } | undefined {
  if (!Array.isArray(value)) return undefined;
  const n = Math.min(value.length, walk.limits.maxItems);
  const items = value.slice(0, n);
  return value.length > n ? { items, issue: `${path} has ${value.length} items; kept the first ${n}` } : { items };
}

function stringList(value: unknown, walk: Walk, path: string, item: (v: unknown) => string | undefined): FieldOutcome {
  if (typeof value === "string") {
    const one = item(value);
    return one === undefined ? drop(path, "must be a list of strings") : { value: [one], issue: `${path} must be a list of strings; made a one-item list` };
  }
  const list = listItems(value, walk, path);
  if (!list) return drop(path, "must be a list of strings");
  let issue = list.issue;
  const out: string[] = [];
  list.items.forEach((v, i) => {
    const s = item(v);
    if (s === undefined) issue ??= `${path}[${i}] is not a usable string; dropped`;
    else if (typeof v !== "string") issue ??= `${path}[${i}] is not a string; converted to text`;
    if (s !== undefined) out.push(s);
  });
  return { value: out, issue };
}

/** Checks a JSON value is an object; keys longer than MAX_METADATA_KEY_CHARS are cut. */
export function checkRecord(json: JsonValue, path: string): FieldOutcome {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return drop(path, "must be an object");
  let long = false;
  for (const key of Object.keys(json)) if (key.length > MAX_METADATA_KEY_CHARS) long = true;
  if (!long) return { value: json };
  const out: { [key: string]: JsonValue } = {};
  for (const [key, v] of Object.entries(json)) out[truncateString(key, MAX_METADATA_KEY_CHARS)] = v;
  return { value: out, issue: `${path} has keys longer than ${MAX_METADATA_KEY_CHARS} characters; truncated` };
}

const repairers: { [K in FieldRule["kind"]]: Repairer<Extract<FieldRule, { kind: K }>> } = {
  label: (v, rule, _walk, path) => labelOf(v, rule.cap, path),
  text(v, _rule, walk, path) {
    if (typeof v === "string") return { value: boundedText(v, walk) };
    const t = textOf(v, walk);
    return t === undefined ? drop(path, "must be a string") : { value: t, issue: `${path} must be a string; converted to text` };
  },
  count(v, _rule, _walk, path) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) return drop(path, "must be a non-negative integer");
    return Number.isInteger(v) ? { value: v } : { value: Math.round(v), issue: `${path} must be an integer; rounded` };
  },
  amount(v, _rule, _walk, path) {
    return typeof v === "number" && Number.isFinite(v) && v >= 0 ? { value: v } : drop(path, "must be a non-negative number");
  },
  enum(v, rule, _walk, path) {
    const allowed = `one of ${rule.values.join(", ")}`;
    if (typeof v === "string") {
      if (rule.values.includes(v)) return { value: v };
      const upper = v.toUpperCase();
      if (rule.values.includes(upper)) return { value: upper, issue: `${path} must be ${allowed}; converted` };
    }
    return drop(path, `must be ${allowed}`);
  },
  labels(v, rule, walk, path) {
    return stringList(v, walk, path, (item) => {
      const out = labelOf(item, rule.cap, path).value;
      return typeof out === "string" ? out : undefined;
    });
  },
  texts(v, _rule, walk, path) {
    return stringList(v, walk, path, (item) => textOf(item, walk));
  },
  record(v, _rule, walk, path) {
    return checkRecord(toJsonValue(v, walk.limits), path);
  },
  any(v, _rule, walk) {
    return { value: v === undefined ? undefined : toJsonValue(v, walk.limits) };
  },
  object(v, rule, walk, path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return drop(path, "must be an object");
    const source = v as Record<string, unknown>;
    const out: { [key: string]: JsonValue } = {};
    let issue: string | undefined;
    for (const key of Object.keys(source)) {
      if (!Object.hasOwn(rule.shape, key)) issue ??= `${path}.${truncateString(key, 64)} is not a known field; dropped`;
    }
    for (const [key, field] of Object.entries(rule.shape)) {
      const raw = source[key];
      const sub = raw === undefined || raw === null ? { value: undefined, issue: undefined } : repair(field.rule, raw, walk, `${path}.${key}`);
      if (sub.value !== undefined) out[key] = sub.value;
      else if (field.required) return { value: undefined, issue: `${sub.issue ?? `${path}.${key} is missing`}, and it is required: ${path} dropped` };
      if (sub.issue) issue ??= sub.value === undefined ? asDropped(sub.issue) : sub.issue;
    }
    return { value: out, issue };
  },
  list(v, rule, walk, path) {
    const list =
      listItems(v, walk, path) ??
      (v !== null && typeof v === "object" ? { items: [v], issue: `${path} must be a list; made a one-item list` } : undefined);
    if (!list) return drop(path, "must be a list");
    let issue = list.issue;
    const out: JsonValue[] = [];
    list.items.forEach((item, i) => {
      const sub = item === undefined || item === null ? drop(`${path}[${i}]`, "is empty") : repair(rule.item, item, walk, `${path}[${i}]`);
      if (sub.value !== undefined) out.push(sub.value);
      if (sub.issue) issue ??= sub.value === undefined ? asDropped(sub.issue) : sub.issue;
    });
    return { value: out, issue };
  },
};

function repair(rule: FieldRule, value: unknown, walk: Walk, path: string): FieldOutcome {
  return (repairers[rule.kind] as Repairer<FieldRule>)(value, rule, walk, path);
}

/**
 * Checks one field value against its rule and returns what to send: the value as it is, a
 * repaired value, or undefined (dropped), with the reason. `null` and `undefined` are "not
 * set". Never throws: a value that cannot even be read (a throwing getter, a revoked proxy) is
 * dropped.
 */
export function checkField(rule: FieldRule, value: unknown, path: string, limits: SerializeLimits = defaultSerializeLimits): FieldOutcome {
  if (value === undefined || value === null) return { value: undefined };
  try {
    return repair(rule, value, { limits, budget: limits.maxTotalChars }, path);
  } catch (err) {
    return drop(path, `could not be read (${truncateString(describeError(err), 200)})`);
  }
}

/** `checkField`, reporting a dropped or repaired value with one warning per field path. */
export function checkFieldOrWarn(
  rule: FieldRule,
  value: unknown,
  scope: string,
  key: string,
  logger: Logger,
  limits: SerializeLimits = defaultSerializeLimits,
): JsonValue | undefined {
  const outcome = checkField(rule, value, key, limits);
  if (outcome.issue) {
    const issue = outcome.value === undefined ? asDropped(outcome.issue) : outcome.issue;
    warnFieldOnce(logger, `${scope}.${key}`, `${scope} field ${issue}`);
  }
  return outcome.value;
}

/**
 * Picks the span fields of `source` that apply to a span of `type`, checked and repaired by
 * {@link spanFieldRules}: a wrong value is dropped or repaired with one warning per field, so
 * that one bad field never gets the whole trace rejected by the service. Keys without a rule
 * are left to the caller. Never throws.
 */
export function pickSpanFields(type: SpanType, source: object, logger: Logger, limits: SerializeLimits = defaultSerializeLimits): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  let entries: [string, unknown][];
  try {
    entries = Object.entries(source);
  } catch (err) {
    warnFieldOnce(logger, "span.*", `span fields could not be read (${truncateString(describeError(err), 200)}); ignored`);
    return out;
  }
  for (const [key, value] of entries) {
    const rule = Object.hasOwn(spanFieldRules, key) ? spanFieldRules[key] : undefined;
    if (!rule || value === undefined) continue;
    const owner = typeFieldOwner.get(key);
    if (owner !== undefined && owner !== type) {
      logger.debug(`field ${key} does not apply to ${type} spans; ignored`);
      continue;
    }
    const checked = checkFieldOrWarn(rule, value, "span", key, logger, limits);
    if (checked !== undefined) out[key] = checked;
  }
  return out;
}
