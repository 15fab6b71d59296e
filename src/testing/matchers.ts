import type { CapturedSpan, CapturedTrace } from "./captured.js";
import { allSpans } from "./capture.js";
import { describeSpan, renderTraces } from "./render.js";
import { checkQuery, describeValue, matchesQuery, mismatches, type ParentOf, type SpanQuery } from "./span-query.js";

/**
 * What a matcher reads of the `this` that Vitest and Jest give it: `isNot` under `.not`, and the
 * printing helpers (`utils`), when the runner has them.
 */
export interface MatcherContext {
  isNot?: boolean;
  utils?: {
    printExpected?(value: unknown): string;
    printReceived?(value: unknown): string;
    matcherHint?(matcherName: string, received?: string, expected?: string, options?: { isNot?: boolean }): string;
  };
}

/** What a matcher returns, as Vitest and Jest expect: whether it passed, and the message shown when the assertion fails. */
export interface MatcherResult {
  pass: boolean;
  message(): string;
}

/**
 * The trace matchers, for a test runner's `Assertion` (Vitest) or `Matchers` (Jest) interface: `R`
 * is what the runner's matchers return. Each takes what `expect()` was given: a capture from
 * `captureTraces()`, one captured trace, or a list of them.
 */
export interface TraceMatchers<R = unknown> {
  /** Some captured span matches the query (`{ type, name, input, output, model, parent: { name } ... }`, matched partially). */
  toHaveSpan(query: SpanQuery): R;
  /** Spans matching these queries started in this order (other spans may start between them). */
  toHaveSpansInOrder(queries: readonly SpanQuery[]): R;
  /** A span matching `child` has a direct parent matching `parent`. */
  toHaveChildSpan(parent: SpanQuery, child: SpanQuery): R;
  /** Exactly `count` captured spans match the query (`{}` counts every span). */
  toHaveSpanCount(query: SpanQuery, count: number): R;
  /** No captured span has the status `ERRORED`. */
  toHaveNoErroredSpans(): R;
}

/** A matcher as `expect.extend` takes it. */
type Matcher<A extends unknown[]> = (this: MatcherContext, received: unknown, ...args: A) => MatcherResult;

/** The matchers of {@link TraceMatchers} as `expect.extend` takes them (the same object for Vitest and Jest). */
export type TraceMatcherFunctions = {
  toHaveSpan: Matcher<[query: SpanQuery]>;
  toHaveSpansInOrder: Matcher<[queries: readonly SpanQuery[]]>;
  toHaveChildSpan: Matcher<[parent: SpanQuery, child: SpanQuery]>;
  toHaveSpanCount: Matcher<[query: SpanQuery, count: number]>;
  toHaveNoErroredSpans: Matcher<[]>;
};

/** What a matcher looks through: the traces, their spans in start order, and each span's parent. */
interface Subject {
  traces: CapturedTrace[];
  spans: CapturedSpan[];
  parentOf: ParentOf;
}

/**
 * The trace matchers, for `expect.extend(matchers)` in Vitest or Jest. They follow the matcher
 * contract both runners share: called with the runner's `this` (`isNot`, `utils` when present)
 * and what `expect()` was given, they return `{ pass, message }`; a failure's message shows the
 * captured traces as a tree. A query that is not one throws a TypeError naming what is wrong.
 */
export const matchers: TraceMatcherFunctions = {
  toHaveSpan(received, query) {
    checkQuery(query, "toHaveSpan");
    return spanResult(this, "toHaveSpan", subjectOf(received, "toHaveSpan"), query);
  },

  toHaveChildSpan(received, parent, child) {
    checkQuery(parent, "toHaveChildSpan (parent)");
    checkQuery(child, "toHaveChildSpan (child)");
    return spanResult(this, "toHaveChildSpan", subjectOf(received, "toHaveChildSpan"), { ...child, parent });
  },

  toHaveSpansInOrder(received, queries) {
    if (!Array.isArray(queries)) throw new TypeError(`toHaveSpansInOrder: expected a list of span queries, got ${describeValue(queries)}`);
    for (const [i, q] of queries.entries()) checkQuery(q, `toHaveSpansInOrder (query ${i + 1})`);
    const subject = subjectOf(received, "toHaveSpansInOrder");
    const found: CapturedSpan[] = [];
    let at = 0;
    for (const query of queries) {
      while (at < subject.spans.length && !matchesQuery(subject.spans[at]!, query, subject.parentOf)) at++;
      if (at >= subject.spans.length) break;
      found.push(subject.spans[at]!);
      at++;
    }
    const pass = found.length === queries.length;
    const steps = queries.map((q, i) => `  ${i + 1}. ${printQuery(this, q)}${found[i] ? ` → ${describeSpan(found[i])}` : i === found.length ? (i === 0 ? "  ✗ no span matches" : "  ✗ no span after the one above matches") : ""}`);
    return result(this, "toHaveSpansInOrder", subject, pass, () =>
      this.isNot ? `Expected the spans not to start in this order, but they did:\n${steps.join("\n")}` : `Expected spans to start in this order:\n${steps.join("\n")}`,
    );
  },

  toHaveSpanCount(received, query, count) {
    checkQuery(query, "toHaveSpanCount");
    if (!Number.isInteger(count) || count < 0) throw new TypeError(`toHaveSpanCount: the count must be a non-negative integer, got ${describeValue(count)}`);
    const subject = subjectOf(received, "toHaveSpanCount");
    const matching = subject.spans.filter((s) => matchesQuery(s, query, subject.parentOf));
    const pass = matching.length === count;
    return result(this, "toHaveSpanCount", subject, pass, () => {
      const head = this.isNot ? `Expected a count other than ${count} of spans matching ${printQuery(this, query)}` : `Expected ${count} span(s) matching ${printQuery(this, query)}, found ${matching.length}`;
      return matching.length === 0 ? head : `${head}:\n${list(matching)}`;
    });
  },

  toHaveNoErroredSpans(received) {
    const subject = subjectOf(received, "toHaveNoErroredSpans");
    const errored = subject.spans.filter((s) => s.status === "ERRORED");
    return result(this, "toHaveNoErroredSpans", subject, errored.length === 0, () =>
      this.isNot ? "Expected an errored span, found none" : `Expected no errored span, found ${errored.length}:\n${list(errored)}`,
    );
  },
};

/** The result of a search for one span (toHaveSpan, toHaveChildSpan). */
function spanResult(ctx: MatcherContext, name: string, subject: Subject, query: SpanQuery): MatcherResult {
  const matching = subject.spans.filter((s) => matchesQuery(s, query, subject.parentOf));
  return result(ctx, name, subject, matching.length > 0, () => {
    if (ctx.isNot) return `Expected no span matching ${printQuery(ctx, query)}, found ${matching.length}:\n${list(matching)}`;
    const near = nearest(subject, query);
    return `Expected a span matching ${printQuery(ctx, query)}${near ? `\n${near}` : ""}`;
  });
}

/** The span that misses the query by the fewest fields, and what those fields are in it. */
function nearest(subject: Subject, query: SpanQuery): string | undefined {
  let best: { span: CapturedSpan; missed: string[] } | undefined;
  for (const span of subject.spans) {
    const missed = mismatches(span, query, subject.parentOf);
    if (!best || missed.length < best.missed.length) best = { span, missed };
  }
  if (!best) return undefined;
  const got = best.missed.map((key) => {
    if (key === "parent") {
      const parent = subject.parentOf(best.span);
      return `parent: ${parent ? describeSpan(parent) : "none (a root)"}`;
    }
    if (key === "where") return "where: returned false";
    const value = key === "attributes" ? best.span.attributes : (best.span as unknown as Record<string, unknown>)[key];
    return `${key}: ${describeValue(value)}`;
  });
  return `Nearest: ${describeSpan(best.span)}\n  differs in ${got.join("; ")}`;
}

function result(ctx: MatcherContext, name: string, subject: Subject, pass: boolean, explain: () => string): MatcherResult {
  return {
    pass,
    message: () => {
      const hint = ctx.utils?.matcherHint?.(`${ctx.isNot ? ".not" : ""}.${name}`, "capture", "", { isNot: ctx.isNot }) ?? `expect(capture)${ctx.isNot ? ".not" : ""}.${name}(...)`;
      return `${hint}\n\n${explain()}\n\n${renderTraces(subject.traces)}`;
    },
  };
}

function list(spans: readonly CapturedSpan[]): string {
  const shown = spans.slice(0, 10).map((s) => `  - ${describeSpan(s)}`);
  if (spans.length > 10) shown.push(`  ... and ${spans.length - 10} more`);
  return shown.join("\n");
}

/** A query as the runner prints expected values (colors included), or as compact text. */
function printQuery(ctx: MatcherContext, query: SpanQuery): string {
  try {
    const printed = ctx.utils?.printExpected?.(query);
    if (typeof printed === "string") return printed.replace(/\s*\n\s*/g, " ");
  } catch {
    // Printed as text below.
  }
  return queryText(query);
}

/** `{ type: "llm", name: /chat/ }`: strings quoted, RegExps and asymmetric matchers as written. */
export function queryText(value: unknown): string {
  if (value instanceof RegExp) return String(value);
  if (typeof value === "function") return "[Function]";
  if (Array.isArray(value)) return `[${value.map(queryText).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    if (typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === "function") return String((value as { toString(): string }).toString());
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? "{}" : `{ ${entries.map(([k, v]) => `${k}: ${queryText(v)}`).join(", ")} }`;
  }
  return describeValue(value);
}

/** The traces `expect()` was given: a capture, one trace, or a list. */
function subjectOf(received: unknown, matcher: string): Subject {
  let traces: CapturedTrace[];
  if (received !== null && typeof received === "object" && typeof (received as { traces?: unknown }).traces === "function") {
    traces = (received as { traces(): CapturedTrace[] }).traces();
  } else if (Array.isArray(received) && received.every(isTrace)) {
    traces = received as CapturedTrace[];
  } else if (isTrace(received)) {
    traces = [received];
  } else {
    throw new TypeError(`${matcher}: expect() must be given a capture from captureTraces(), a captured trace or a list of them; got ${describeValue(received)}`);
  }
  const byUuid = new Map<string, CapturedSpan>();
  for (const trace of traces) for (const span of trace.spans) byUuid.set(`${span.traceUuid}/${span.uuid}`, span);
  const parentOf: ParentOf = (span) => (span.parentUuid === undefined ? undefined : byUuid.get(`${span.traceUuid}/${span.parentUuid}`));
  return { traces, spans: allSpans(traces), parentOf };
}

function isTrace(value: unknown): value is CapturedTrace {
  return value !== null && typeof value === "object" && Array.isArray((value as CapturedTrace).spans) && Array.isArray((value as CapturedTrace).roots);
}
