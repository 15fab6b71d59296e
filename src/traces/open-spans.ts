import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

/**
 * The spans of one trace that started and have not ended, held in the smallest form that fits:
 * nothing, the span itself, a short array, or a set once there are many. Every trace holds some
 * while it runs, and most hold one or a few: a `Set` for each (and its table, remade as it
 * shrinks) was a good part of what a short trace allocated.
 */
export type OpenSpans = ReadableSpan | ReadableSpan[] | Set<ReadableSpan> | undefined;

/** Past this many open spans, a set: deleting from an array is linear in its length. */
const MAX_ARRAY = 16;

/** Returned by {@link withoutOpenSpan} when the span was not open. */
export const NOT_OPEN: unique symbol = Symbol("not open");

const NONE: readonly ReadableSpan[] = Object.freeze([]);

/** The open spans with `span` added. */
export function withOpenSpan(open: OpenSpans, span: ReadableSpan): OpenSpans {
  if (open === undefined) return span;
  if (open instanceof Set) return open.add(span);
  if (!Array.isArray(open)) return open === span ? open : [open, span];
  if (open.includes(span)) return open;
  if (open.length < MAX_ARRAY) {
    open.push(span);
    return open;
  }
  return new Set([...open, span]);
}

/** The open spans without `span`, or {@link NOT_OPEN} when it was not among them. */
export function withoutOpenSpan(open: OpenSpans, span: ReadableSpan): OpenSpans | typeof NOT_OPEN {
  if (open === undefined) return NOT_OPEN;
  if (open instanceof Set) {
    if (!open.delete(span)) return NOT_OPEN;
    return open.size === 0 ? undefined : open;
  }
  if (!Array.isArray(open)) return open === span ? undefined : NOT_OPEN;
  const at = open.indexOf(span);
  if (at < 0) return NOT_OPEN;
  // Order does not matter: the last one takes the freed place.
  const last = open.pop()!;
  if (at < open.length) open[at] = last;
  return open.length === 0 ? undefined : open;
}

/** The open spans, to iterate (a snapshot where a caller may change them meanwhile is its own copy). */
export function openSpansIn(open: OpenSpans): Iterable<ReadableSpan> {
  if (open === undefined) return NONE;
  if (open instanceof Set || Array.isArray(open)) return open;
  return [open];
}
