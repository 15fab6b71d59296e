/**
 * `evaltrace/mastra`: an exporter for Mastra's observability (`@mastra/core` 1.x with
 * `@mastra/observability`), mapping its agent, model, tool and workflow spans to evaltrace's.
 */
export type { EvaltraceExporterOptions } from "./exporter.js";
export { EvaltraceExporter } from "./exporter.js";
export { MASTRA_SPAN_TYPES } from "./mapping.js";
export type { MastraExportedSpan, MastraTracingEvent } from "./types.js";
