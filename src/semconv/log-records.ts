import { processWide, registry } from "../registry.js";
import { LOG_RECORDS_SLOT } from "../tracing/span-data.js";
import { MAX_FOREIGN_JSON_CHARS, truncateString } from "../tracing/string-limits.js";

/** A log record as an OpenTelemetry LoggerProvider hands it to its processors (the parts read here). */
export interface EmittedLogRecord {
  eventName?: string;
  body?: unknown;
  attributes?: { [key: string]: unknown };
  spanContext?: { traceId: string; spanId: string };
}

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
 * Keeps the GenAI content events an instrumentation emits as log records (the official
 * `@opentelemetry/instrumentation-openai` sends prompts and completions this way:
 * `gen_ai.user.message`, `gen_ai.choice`, ...), by the span they were emitted in, until that
 * span is mapped. Register it on your LoggerProvider next to your own processors:
 *
 * @example
 * const loggerProvider = new LoggerProvider({ processors: [new EvaltraceLogRecordProcessor()] });
 * logs.setGlobalLoggerProvider(loggerProvider);
 */
export class EvaltraceLogRecordProcessor {
  onEmit(record: EmittedLogRecord): void {
    try {
      // Nothing is held while tracing is off.
      if (!registry().current?.isRecording) return;
      const eventName = record.eventName ?? record.attributes?.["event.name"];
      const spanId = record.spanContext?.spanId;
      if (typeof eventName !== "string" || !eventName.startsWith("gen_ai.") || !spanId) return;
      let list = buffer.spans.get(spanId);
      if (!list) {
        list = [];
        buffer.spans.set(spanId, list);
      }
      if (list.length >= MAX_RECORDS_PER_SPAN) return;
      const kept = bounded(record.body);
      list.push({ eventName, body: kept.body, size: kept.size });
      buffer.chars += kept.size;
      // Oldest spans first out, past either bound.
      while ((buffer.spans.size > MAX_SPANS || buffer.chars > MAX_TOTAL_CHARS) && buffer.spans.size > 1) {
        drop(buffer.spans.keys().next().value as string);
      }
    } catch {
      // Never break the app's logging pipeline.
    }
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
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
