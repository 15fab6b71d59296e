import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { parentSpanIdOf } from "../spans/span-data.js";

/** Orders spans so that each comes after its parent when both are in the list. */
export function parentsFirst(spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const out: ReadableSpan[] = [];
  const placed = new Set<ReadableSpan>();
  const place = (s: ReadableSpan) => {
    if (placed.has(s)) return;
    placed.add(s);
    const parent = byId.get(parentSpanIdOf(s) ?? "");
    if (parent) place(parent);
    out.push(s);
  };
  for (const s of spans) place(s);
  return out;
}
