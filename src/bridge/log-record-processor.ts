import { registry } from "../runtime/registry.js";
import { detailsEvents } from "../semconv/genai-content.js";
import { holdLogRecord } from "./log-records.js";

/** A log record as an OpenTelemetry LoggerProvider hands it to its processors (the parts read here). */
export interface EmittedLogRecord {
  eventName?: string;
  body?: unknown;
  attributes?: { [key: string]: unknown };
  spanContext?: { traceId: string; spanId: string };
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
      // A details record carries its messages in its attributes, not its body.
      const details = record.body === undefined && Object.hasOwn(detailsEvents, eventName);
      holdLogRecord(spanId, eventName, details ? record.attributes : record.body);
    } catch {
      // Never break the app's logging pipeline.
    }
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
