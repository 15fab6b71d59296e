import type { SpanType, ToolCall } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";

/** A JSON object, as the fields of a captured trace or span are. */
export type JsonObject = { [key: string]: JsonValue };

/** Whether a span or a trace ended well (`SUCCESS`) or threw (`ERRORED`). */
export type CapturedStatus = "SUCCESS" | "ERRORED";

/**
 * One span of a captured trace, as it would have been sent to the service (its fields under
 * their wire names), with its children under it. Read-only: a fresh tree is made on each read.
 */
export interface CapturedSpan {
  readonly uuid: string;
  /** The uuid of the trace it belongs to. */
  readonly traceUuid: string;
  /** The uuid of its parent span; absent on a root. */
  readonly parentUuid?: string;
  readonly name: string;
  readonly type: SpanType;
  readonly status: CapturedStatus;
  /** The error's message, on an errored span. */
  readonly error?: string;
  readonly input?: JsonValue;
  readonly output?: JsonValue;
  /** ISO 8601 times, as sent. */
  readonly startTime: string;
  readonly endTime: string;
  /** llm spans: the model (as the provider reported it when it did), provider and token counts. */
  readonly model?: string;
  readonly provider?: string;
  readonly inputTokenCount?: number;
  readonly outputTokenCount?: number;
  /** The tools the span's test case says were called (llm and agent spans of integrations, or set by the app). */
  readonly toolsCalled?: readonly ToolCall[];
  /** Which integration made the span (`OpenAI`, `LangChain`, ...); absent for the app's own observe() spans. */
  readonly integration?: string;
  readonly metadata?: JsonObject;
  /** Every field of the span as it would have been sent (`embedder`, `topK`, `availableTools`, `metricCollection` ...). */
  readonly attributes: JsonObject;
  /** Spans started under this one, in start order. */
  readonly children: readonly CapturedSpan[];
}

/** One captured trace: its fields as they would have been sent, and its spans as a tree. */
export interface CapturedTrace {
  readonly uuid: string;
  readonly name?: string;
  readonly status: CapturedStatus;
  readonly input?: JsonValue;
  readonly output?: JsonValue;
  readonly startTime?: string;
  readonly endTime?: string;
  readonly environment?: string;
  readonly threadId?: string;
  readonly userId?: string;
  readonly tags?: readonly string[];
  readonly metadata?: JsonObject;
  /** Every field of the trace as it would have been sent, but its span lists. */
  readonly attributes: JsonObject;
  /** The trace's root span (undefined only if none of it arrived but late spans under another process's span). */
  readonly root: CapturedSpan | undefined;
  /** The tops of the tree: the root, and spans whose parent is not in this trace (under a remote caller's span). */
  readonly roots: readonly CapturedSpan[];
  /** Every span of the trace, in start order. */
  readonly spans: readonly CapturedSpan[];
}

/** The five span lists of a wire trace. */
const SPAN_LISTS = ["baseSpans", "llmSpans", "retrieverSpans", "agentSpans", "toolSpans"] as const;

/** The wire fields that become a span's typed properties. */
const SPAN_FIELDS = ["uuid", "parentUuid", "name", "type", "status", "error", "input", "output", "startTime", "endTime", "model", "provider", "inputTokenCount", "outputTokenCount", "toolsCalled", "integration", "metadata"] as const;

/** The wire fields that become a trace's typed properties. */
const TRACE_FIELDS = ["uuid", "name", "status", "input", "output", "startTime", "endTime", "environment", "threadId", "userId", "tags", "metadata"] as const;

/** A trace as captured so far: its fields and its spans as they arrived, merged with late updates. */
export class TraceParts {
  readonly fields: JsonObject;
  readonly spans: JsonObject[] = [];

  constructor(trace: JsonObject) {
    const fields: JsonObject = {};
    for (const [key, value] of Object.entries(trace)) {
      if ((SPAN_LISTS as readonly string[]).includes(key)) continue;
      fields[key] = value;
    }
    this.fields = fields;
    this.addSpans(trace);
  }

  /** Merges a late update, as the service would: spans added, output/environment replaced, metadata merged, tags added. */
  update(update: JsonObject): void {
    this.addSpans(update);
    for (const key of ["output", "environment", "endTime"] as const) if (update[key] !== undefined) this.fields[key] = update[key];
    const metadata = update.metadata;
    if (isObject(metadata)) this.fields.metadata = { ...(isObject(this.fields.metadata) ? this.fields.metadata : {}), ...metadata };
    if (Array.isArray(update.tags)) this.fields.tags = [...(Array.isArray(this.fields.tags) ? this.fields.tags : []), ...update.tags];
  }

  private addSpans(body: JsonObject): void {
    for (const list of SPAN_LISTS) {
      const spans = body[list];
      if (Array.isArray(spans)) for (const span of spans) if (isObject(span)) this.spans.push(span);
    }
  }

  /** A fresh read-only tree of what arrived so far. */
  snapshot(): CapturedTrace {
    const traceUuid = String(this.fields.uuid ?? "");
    const nodes = this.spans.map((wire, order) => ({ node: spanNode(wire, traceUuid), order, start: timeKey(wire.startTime) }));
    nodes.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
    const byUuid = new Map(nodes.map(({ node }) => [node.uuid, node]));
    const roots: CapturedSpan[] = [];
    for (const { node } of nodes) {
      const parent = node.parentUuid === undefined ? undefined : byUuid.get(node.parentUuid);
      if (parent) (parent.children as CapturedSpan[]).push(node);
      else roots.push(node);
    }
    const trace: Record<string, unknown> = { attributes: { ...this.fields } };
    for (const key of TRACE_FIELDS) if (this.fields[key] !== undefined) trace[key] = this.fields[key];
    trace.status ??= "SUCCESS";
    trace.root = roots.find((s) => s.parentUuid === undefined) ?? roots[0];
    trace.roots = roots;
    trace.spans = nodes.map(({ node }) => node);
    return trace as unknown as CapturedTrace;
  }
}

function spanNode(wire: JsonObject, traceUuid: string): CapturedSpan {
  const node: Record<string, unknown> = { traceUuid };
  for (const key of SPAN_FIELDS) if (wire[key] !== undefined) node[key] = wire[key];
  node.attributes = wire;
  node.children = [];
  return node as unknown as CapturedSpan;
}

/** An ISO time as a string that sorts in time order whatever the digits of its fraction. */
export function timeKey(value: JsonValue | undefined): string {
  if (typeof value !== "string") return "";
  const m = /^(.*?)(?:\.(\d+))?Z$/.exec(value);
  if (!m) return value;
  return `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}Z`;
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
