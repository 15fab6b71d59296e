import { processWide } from "../process-wide.js";
import { LOG_RECORDS_SLOT } from "../spans/span-data.js";
import { MAX_FOREIGN_JSON_CHARS, truncateString } from "../spans/string-limits.js";

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

function drop(spanId: string): void {
  const list = buffer.spans.get(spanId);
  if (!list) return;
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
    drop(buffer.spans.keys().next().value as string);
  }
}

/** The content records of a span, in order: those it took when it ended, else those still buffered. */
export function logsOf(span: { spanContext(): { spanId: string } }): readonly { eventName: string; body: unknown }[] {
  const kept = (span as { [LOG_RECORDS_SLOT]?: Held[] })[LOG_RECORDS_SLOT];
  const later = buffer.spans.get(span.spanContext().spanId);
  if (kept && later) return [...kept, ...later];
  return kept ?? later ?? [];
}

/** A kept span takes its records with it when it ends, so that a backlog never evicts them. */
export function keepLogs(span: object & { spanContext(): { spanId: string } }): void {
  const spanId = span.spanContext().spanId;
  const list = buffer.spans.get(spanId);
  if (!list) return;
  (span as { [LOG_RECORDS_SLOT]?: Held[] })[LOG_RECORDS_SLOT] = list;
  drop(spanId);
}

/** Lets go of a span's buffered records. */
export function forgetLogs(spanId: string): void {
  drop(spanId);
}
