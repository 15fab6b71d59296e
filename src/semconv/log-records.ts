import { processWide } from "../registry.js";

/** A log record as an OpenTelemetry LoggerProvider hands it to its processors (the parts read here). */
export interface EmittedLogRecord {
  eventName?: string;
  body?: unknown;
  attributes?: { [key: string]: unknown };
  spanContext?: { traceId: string; spanId: string };
}

/** Most spans whose content records are held, and most records per span. */
const MAX_SPANS = 10_000;
const MAX_RECORDS_PER_SPAN = 256;

/** Content records by span id, oldest span first; one buffer per process (every copy of the package). */
const buffer = processWide("genAiLogRecords", () => new Map<string, { eventName: string; body: unknown }[]>());

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
      const eventName = record.eventName ?? record.attributes?.["event.name"];
      const spanId = record.spanContext?.spanId;
      if (typeof eventName !== "string" || !eventName.startsWith("gen_ai.") || !spanId) return;
      let list = buffer.get(spanId);
      if (!list) {
        if (buffer.size >= MAX_SPANS) buffer.delete(buffer.keys().next().value as string);
        list = [];
        buffer.set(spanId, list);
      }
      if (list.length < MAX_RECORDS_PER_SPAN) list.push({ eventName, body: record.body });
    } catch {
      // Never break the app's logging pipeline.
    }
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}

/** The content records of a span, in order (kept until `forgetLogs`). */
export function logsOf(spanId: string): readonly { eventName: string; body: unknown }[] {
  return buffer.get(spanId) ?? [];
}

/** Lets go of a span's records once it was sent. */
export function forgetLogs(spanId: string): void {
  buffer.delete(spanId);
}
