import type { JsonValue } from "../spans/json-value.js";
import type { TraceUpdate } from "../spans/fields.js";
import type { TraceRecord } from "./trace-record.js";

/**
 * `updateCurrentTrace`'s fields written into a trace's record (the assembler calls these, the one
 * owner of a record): before the trace is sent, into its fields; after, into its late part, where
 * only what `PUT /v1/traces/:uuid` can change goes (spec 4.6).
 */

/** The subset of `TraceUpdate`, already made JSON-safe, that the assembler stores. */
export type SafeTraceUpdate = { [K in keyof TraceUpdate]?: JsonValue };

/** What a late update can still change. */
const overwritableLate = new Set(["output", "environment", "metadata", "tags"]);

function isRecord(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Writes an update into the fields of a trace not sent yet. */
export function applyTraceUpdate(rec: TraceRecord, update: SafeTraceUpdate): void {
  const f = rec.fields;
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined) continue;
    switch (key) {
      case "tags":
        if (Array.isArray(value)) f.tags.push(...value.filter((t): t is string => typeof t === "string"));
        break;
      case "metadata":
        if (isRecord(value)) Object.assign(f.metadata, value);
        break;
      case "name":
      case "threadId":
      case "userId":
      case "environment":
      case "metricCollection":
        if (typeof value === "string") f[key] = value;
        break;
      case "input":
      case "output":
      case "llmTestCase":
        f[key] = value;
        break;
      default:
        f.extra[key] = value;
    }
  }
}


/** Writes an update into the late part of a sent trace; returns the fields it had to ignore. */
export function applyLateTraceUpdate(rec: TraceRecord, update: SafeTraceUpdate): string[] {
  const ignored = Object.keys(update).filter((k) => !overwritableLate.has(k));
  const late = (rec.late ??= { spans: [] });
  if (update.output !== undefined) late.output = update.output;
  if (typeof update.environment === "string") late.environment = update.environment;
  if (isRecord(update.metadata)) late.metadata = { ...late.metadata, ...update.metadata };
  if (Array.isArray(update.tags)) late.tags = [...(late.tags ?? []), ...update.tags.filter((t) => typeof t === "string")];
  return ignored;
}
