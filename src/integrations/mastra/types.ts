/**
 * The parts of Mastra's observability interface (`@mastra/core/observability`) the exporter
 * reads, typed structurally so that `evaltrace/mastra` needs no Mastra types to compile and
 * accepts the events of any 1.x release.
 */

/** A span as Mastra hands it to exporters (`ExportedSpan`). */
export interface MastraExportedSpan {
  /** The span's id, unique in its trace. */
  id: string;
  traceId: string;
  /** The id of the parent span Mastra created, absent on roots. */
  parentSpanId?: string;
  name: string;
  /** Mastra's span type: `agent_run`, `model_generation`, `tool_call`, `workflow_run`, ... */
  type: string;
  /** The agent, tool or workflow that created the span. */
  entityName?: string;
  entityId?: string;
  startTime: Date;
  endTime?: Date;
  /** The span type's own attributes (model, usage, availableTools, toolDescription, status, ...). */
  attributes?: object;
  metadata?: object;
  /** Trace tags, on roots only. */
  tags?: string[];
  input?: unknown;
  output?: unknown;
  errorInfo?: { message: string; name?: string };
  isRootSpan: boolean;
  /** A point in time (an event): only its end is reported. */
  isEvent: boolean;
}

/** One tracing event (`TracingEvent`): a span started, changed or ended. */
export interface MastraTracingEvent {
  type: "span_started" | "span_updated" | "span_ended";
  exportedSpan: MastraExportedSpan;
}
