import type { TraceView } from "./trace-view.js";

/**
 * Where the assembler hands what it assembled: the exporter implements it, and the composition
 * root (`runtime/runtime.ts`) wires the two. The trace room owns this interface so that it never
 * imports the exporter, as OpenTelemetry's span processors own `SpanExporter`. The sink receives
 * read-only views and moves a trace on only through the room's intents (`markSending`,
 * `markSent`, `markFailed`, `nextLateBatch`, ...). The one way back, the exporter saying that a
 * record settled, is its `onSettled` option, wired by the root too.
 */
export interface TraceSink {
  /** A new trace's first span started (called in its async context, before anything else of it). */
  opened?(rec: TraceView): void;
  /** A trace whose root ended: sent as a whole (or dropped, counted, when the queue is full). */
  enqueue(rec: TraceView): void;
  /** `rec.late` got something (a span, a trace field) after the trace was handed off: sent as an update. */
  scheduleUpdate(rec: TraceView): void;
  /** The app dropped a handed-off trace: taken out of the queue if still there, late updates forgotten. */
  discard(rec: TraceView): void;
  /** Sends what is finished now; resolves when it was delivered or given up. Never rejects. */
  flush(): Promise<unknown>;
  /** Delivers what is left, then refuses more. Never rejects. */
  shutdown(): Promise<unknown>;
}
