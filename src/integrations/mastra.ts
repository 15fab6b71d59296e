/**
 * `evaltrace/mastra`: an exporter for Mastra's observability (`@mastra/core` 1.x with
 * `@mastra/observability`), mapping its agent, model, tool and workflow spans to evaltrace's.
 */
export type { EvaltraceExporterOptions } from "./mastra/exporter.js";
export { EvaltraceExporter } from "./mastra/exporter.js";
export { MASTRA_SPAN_TYPES } from "./mastra/mapping.js";
export type { MastraExportedSpan, MastraTracingEvent } from "./mastra/types.js";
