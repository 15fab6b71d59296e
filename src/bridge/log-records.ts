import { processWide } from "../process-wide.js";
import { MAX_FOREIGN_JSON_CHARS, truncateString } from "../util/string-limits.js";

/** Most spans whose content records are held, most records per span, and most characters in all. */
const MAX_SPANS = 2_000;
const MAX_RECORDS_PER_SPAN = 128;
const MAX_TOTAL_CHARS = 32 * 1024 * 1024;

type Held = { eventName: string; body: unknown; size: number };

/** Content records by span id, oldest span first; one buffer per process (every copy of the package). */
const buffer = processWide("genAiLogRecords", () => ({ spans: new Map<string, Held[]>(), chars: 0 }));

/** A record's body, bounded: a body too large to keep whole is kept as its text, cut. */
function bounded(body: unknown): { body: unknown; size: number } {
  let text: string | undefined;
  try {
    text = typeof body === "string" ? body : JSON.stringify(body);
  } catch {
    return { body: "[unserializable]", size: 16 };
  }
  if (text === undefined) return { body, size: 8 };
  if (text.length <= MAX_FOREIGN_JSON_CHARS) return { body, size: text.length };
  const cut = truncateString(text, MAX_FOREIGN_JSON_CHARS);
  return { body: cut, size: cut.length };
}

function drop(spanId: string, list: readonly Held[]): void {
  for (const r of list) buffer.chars -= r.size;
  buffer.spans.delete(spanId);
}

/**
 * Holds one GenAI content record (`gen_ai.user.message`, `gen_ai.choice`, ...) of span `spanId`
 * until that span is mapped; past the bounds, the oldest spans' records go first.
 */
export function holdLogRecord(spanId: string, eventName: string, body: unknown): void {
  let list = buffer.spans.get(spanId);
  if (!list) {
    list = [];
    buffer.spans.set(spanId, list);
  }
  if (list.length >= MAX_RECORDS_PER_SPAN) return;
  const kept = bounded(body);
  list.push({ eventName, body: kept.body, size: kept.size });
  buffer.chars += kept.size;
  while ((buffer.spans.size > MAX_SPANS || buffer.chars > MAX_TOTAL_CHARS) && buffer.spans.size > 1) {
    const [oldestId, oldest] = buffer.spans.entries().next().value as [string, Held[]];
    drop(oldestId, oldest);
  }
}

/** A span's content records in order. */
export type LogRecords = readonly { eventName: string; body: unknown }[];

/**
 * Takes the content records held for a span, in order (they leave the buffer): undefined when
 * there are none. The bridge takes them when the span ends, and any that came after when it is
 * sent.
 */
export function takeLogs(spanId: string): LogRecords | undefined {
  const list = buffer.spans.get(spanId);
  if (list) drop(spanId, list);
  return list;
}
