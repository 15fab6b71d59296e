import type { Attributes } from "@opentelemetry/api";
import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";

/** A chat message as the service reads it: a role and plain text. */
export interface Message {
  role: string;
  content: string;
}

/** A tool call found in a message or span: the test cases' `toolsCalled` shape. */
export interface FoundToolCall {
  name: string;
  inputParameters?: { [key: string]: JsonValue };
}

/** Everything known of a foreign span when it ends: name, final attributes, events, log records. */
export interface FinishedSpan {
  name: string;
  attributes: Attributes;
  /** Span events (name and attributes), e.g. the GenAI events of older instrumentations. */
  events: readonly { name: string; attributes?: Attributes }[];
  /** Log records emitted in the span's context (OTel GenAI content events), in order. */
  logs: readonly { eventName: string; body: unknown }[];
  /**
   * The `gen_ai.operation.name` of the spans started under it (its children), when any had one:
   * an operation that wraps model calls of its own kind is no model call itself.
   */
  childOperations?: readonly string[];
  /** The tool calls of the GenAI tool spans that ran under it, as OpenAI `tool_calls` entries (child-tools.ts). */
  childToolCalls?: readonly JsonValue[];
  /** The name of the instrumentation that made it (its scope), when it has one. */
  scope?: string;
}

/** What a convention makes of a span: its type, name, service fields, input and output. */
export interface Mapped {
  type: SpanType;
  name: string;
  /** The convention that read it, recorded as the span's `integration`. */
  integration: string;
  /** Checked like those of our own spans; `integration` last. */
  fields: { [key: string]: JsonValue };
  /** As read from attributes of any size: not yet bounded. */
  input: JsonValue | undefined;
  output: JsonValue | undefined;
  /** An error the convention reads in a span whose status says nothing went wrong (a stream that ended with an error, or never finished). */
  error?: string;
}

/**
 * One semantic convention, as data: whether it claims a span, the span type by its kind
 * attribute, the attributes each field is read from, and readers for input and output.
 */
export interface Convention {
  /** Recorded as the span's `integration`. */
  name: string;
  /** Whether the span is written in this convention. */
  claims(span: FinishedSpan): boolean;
  /** The span type; undefined: the span is not worth keeping (its children re-parent past it). */
  type(span: FinishedSpan): SpanType | undefined;
  /** Scalar fields: the first attribute present wins. */
  fields: readonly FieldSource[];
  /** The span's name in our trace (a tool's name, say); default: the span's own. */
  spanName?(span: FinishedSpan, type: SpanType): string | undefined;
  input?(span: FinishedSpan, type: SpanType): JsonValue | undefined;
  output?(span: FinishedSpan, type: SpanType): JsonValue | undefined;
  /** An error written in the span's attributes while its status is unset or OK; undefined: none. */
  error?(span: FinishedSpan, type: SpanType): string | undefined;
  /** Extra fields computed from several attributes (tool calls, retrieval context, ...). */
  extra?(span: FinishedSpan, type: SpanType): { [key: string]: JsonValue } | undefined;
}

/** Where one service field comes from. */
export interface FieldSource {
  field: string;
  keys: readonly string[];
  as: "string" | "count";
  /** Only for these span types (default: all). */
  types?: readonly SpanType[];
}
