import type { SpanType } from "../protocol/types.js";
import type { CapturedSpan, CapturedStatus } from "./captured.js";

/** A text field's expected value: the exact string, a RegExp it matches, or an asymmetric matcher (`expect.stringContaining(...)`). */
export type TextQuery = string | RegExp | AsymmetricMatcherLike;

/** What Vitest's and Jest's asymmetric matchers (`expect.any`, `expect.objectContaining` ...) have in common. */
export interface AsymmetricMatcherLike {
  asymmetricMatch(other: unknown): boolean;
}

/**
 * Which spans a matcher looks for. Every field given must match; fields left out match anything.
 * Values match partially: an object matches when each key given matches (others are ignored), an
 * array when its elements match, in order, elements of the span's array (others may be between
 * them), a string exactly, a RegExp when it matches the string; an asymmetric matcher of the test
 * runner (`expect.stringContaining`, `expect.any(Number)` ...) decides for itself.
 */
export interface SpanQuery {
  type?: SpanType;
  name?: TextQuery;
  status?: CapturedStatus;
  /** The error's message (only errored spans have one). */
  error?: TextQuery;
  input?: unknown;
  output?: unknown;
  model?: TextQuery;
  provider?: TextQuery;
  integration?: TextQuery;
  inputTokenCount?: number | AsymmetricMatcherLike;
  outputTokenCount?: number | AsymmetricMatcherLike;
  /** The tools the span says were called: e.g. `[{ name: "lookup_order" }]`. */
  toolsCalled?: unknown;
  metadata?: { [key: string]: unknown };
  /** Any field of the span as sent (`{ embedder: "text-embedding-3-small" }`, `{ availableTools: ["search"] }`). */
  attributes?: { [key: string]: unknown };
  /** The span's direct parent matches this query. */
  parent?: SpanQuery;
  /** A test of your own. */
  where?: (span: CapturedSpan) => boolean;
}

const QUERY_KEYS = new Set(["type", "name", "status", "error", "input", "output", "model", "provider", "integration", "inputTokenCount", "outputTokenCount", "toolsCalled", "metadata", "attributes", "parent", "where"]);

/** Checks a query the user wrote: a clear error naming what is wrong. */
export function checkQuery(query: unknown, where: string): asserts query is SpanQuery {
  if (query === null || typeof query !== "object" || Array.isArray(query)) throw new TypeError(`${where}: expected a span query object like { type: "llm", name: "chat" }, got ${describeValue(query)}`);
  for (const key of Object.keys(query)) {
    if (!QUERY_KEYS.has(key)) throw new TypeError(`${where}: unknown span query field "${key}" (known: ${[...QUERY_KEYS].join(", ")}; any other field of the span goes in attributes)`);
  }
  const q = query as SpanQuery;
  if (q.parent !== undefined) checkQuery(q.parent, `${where} (parent)`);
  if (q.where !== undefined && typeof q.where !== "function") throw new TypeError(`${where}: "where" must be a function of the span`);
}

/** Finds a span's parent among the spans it was captured with. */
export type ParentOf = (span: CapturedSpan) => CapturedSpan | undefined;

/** Whether a span matches a query. */
export function matchesQuery(span: CapturedSpan, query: SpanQuery, parentOf: ParentOf): boolean {
  return mismatches(span, query, parentOf, 1).length === 0;
}

/** The query's fields the span does not match (at most `limit`), as `field` names. */
export function mismatches(span: CapturedSpan, query: SpanQuery, parentOf: ParentOf, limit = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const [key, expected] of Object.entries(query)) {
    if (out.length >= limit) break;
    if (expected === undefined) continue;
    let ok: boolean;
    if (key === "parent") {
      const parent = parentOf(span);
      ok = parent !== undefined && matchesQuery(parent, expected as SpanQuery, parentOf);
    } else if (key === "where") {
      ok = safely(() => (expected as (s: CapturedSpan) => boolean)(span));
    } else if (key === "attributes") {
      ok = matchesPartially(span.attributes, expected);
    } else {
      ok = matchesPartially((span as unknown as Record<string, unknown>)[key], expected);
    }
    if (!ok) out.push(key);
  }
  return out;
}

/** Partial matching as {@link SpanQuery} describes it. */
export function matchesPartially(actual: unknown, expected: unknown): boolean {
  if (isAsymmetric(expected)) return safely(() => expected.asymmetricMatch(actual));
  if (expected instanceof RegExp) return typeof actual === "string" && new RegExp(expected.source, expected.flags.replace("g", "")).test(actual);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    let i = 0;
    for (const item of expected) {
      while (i < actual.length && !matchesPartially(actual[i], item)) i++;
      if (i >= actual.length) return false;
      i++;
    }
    return true;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(expected).every(([k, v]) => (v === undefined ? a[k] === undefined : matchesPartially(a[k], v)));
  }
  return Object.is(actual, expected);
}

function isAsymmetric(value: unknown): value is AsymmetricMatcherLike {
  return value !== null && typeof value === "object" && typeof (value as AsymmetricMatcherLike).asymmetricMatch === "function";
}

function safely(test: () => boolean): boolean {
  try {
    return test() === true;
  } catch {
    return false;
  }
}

/** A short description of any value, for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (value instanceof RegExp) return String(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 117)}...` : text;
  } catch {
    return String(value);
  }
}
