import { type HrTime, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { foreignSpanData, getSpanData, parentSpanIdOf, sentStartOf } from "../spans/span-data.js";
import { isLater } from "../spans/time.js";
import { MAX_ERROR_CHARS, MAX_NAME_CHARS, truncateString } from "../util/string-limits.js";
import { providerName } from "../semconv/providers.js";
import { llmInputMessages } from "./llm-input.js";
import { jsonText } from "./json-text.js";

/**
 * Where the uuids and times of a wire span or trace come from: they are written into the body
 * straight from these (wire-bytes.ts), never made as strings.
 */
export const HEAD: unique symbol = Symbol("evaltrace.wireHead");

/** A span's ids and times: its `uuid`, `parentUuid`, `startTime` and `endTime` on the wire. */
export interface SpanHead {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentId: string | undefined;
  readonly start: HrTime;
  readonly end: HrTime;
}

/** A trace's id and times: its `uuid`, `startTime` and `endTime` on the wire. */
export interface TraceHead {
  readonly traceId: string;
  readonly start: HrTime;
  readonly end: HrTime;
}

/**
 * A span as `POST /v1/traces` carries it (spec 2.5, wire-format "Span"), but for `uuid`,
 * `parentUuid`, `startTime` and `endTime`, which its {@link HEAD} gives.
 */
export interface WireSpan {
  [HEAD]: SpanHead;
  name: string;
  type: SpanType;
  status: "SUCCESS" | "ERRORED";
  error?: string;
  input?: JsonValue;
  output?: JsonValue;
  metadata?: { [key: string]: JsonValue };
  [field: string]: JsonValue | undefined;
}

/** The five span lists of a trace, by type. */
export const spanListKeys = {
  base: "baseSpans",
  llm: "llmSpans",
  retriever: "retrieverSpans",
  agent: "agentSpans",
  tool: "toolSpans",
} as const satisfies Record<SpanType, string>;

export type SpanListKey = (typeof spanListKeys)[SpanType];

/** A trace as `POST /v1/traces` carries it, but for `uuid`, `startTime` and `endTime` ({@link HEAD}). */
export type WireTrace = {
  [HEAD]: TraceHead;
  status: "SUCCESS" | "ERRORED";
  name?: string;
  input?: JsonValue;
  output?: JsonValue;
  environment?: string;
  metadata?: { [key: string]: JsonValue };
  tags?: string[];
  threadId?: string;
  userId?: string;
  metricCollection?: string;
  llmTestCase?: JsonValue;
  [field: string]: unknown;
} & { [K in SpanListKey]: WireSpan[] };

/** The span lists of a trace being built: only those with spans exist. */
export type SomeSpanLists = { [K in SpanListKey]?: WireSpan[] };

/** The list of a type without spans: the wire format sends all five lists, the empty ones as `[]`. */
export const NO_SPANS: WireSpan[] = Object.freeze([]) as unknown as WireSpan[];

/**
 * Maps a finished OTel span to the service's span, from its span data: our own spans carry it
 * from their start; a span of another instrumentation carries what the bridge read it as, by its
 * semantic convention, when it ended (bridge/foreign-span.ts: OpenTelemetry GenAI `gen_ai.*`,
 * Vercel AI SDK `ai.*` ...). The parent is the span's own, or the nearest kept ancestor the span
 * processor set for it. Every string is bounded: the name by MAX_NAME_CHARS, the error by
 * MAX_ERROR_CHARS, captured values (and the values of foreign spans, like them) when shaped.
 */
export function toWireSpan(span: ReadableSpan): WireSpan {
  const ctx = span.spanContext();
  const data = getSpanData(span) ?? foreignSpanData(span);
  const type = data.type;
  // Already shaped when read (input, output), its fields final (its test case stays as it is).
  const foreign = data.foreign === true;
  const statusErrored = span.status.code === SpanStatusCode.ERROR;
  // A span of another instrumentation may say OK where its convention reads an error.
  const errored = statusErrored || data.error !== undefined;
  // Made with the fields written by name, unset ones undefined (left out of the JSON), and the
  // symbol last (V8 keeps in the object itself only the fields a literal names before a computed
  // key): a span's usual fields fit in the object, with no property store grown as they are set.
  const wire: WireSpan = {
    name: data.name ?? truncateString(typeof span.name === "string" ? span.name : String(span.name), MAX_NAME_CHARS),
    type,
    status: errored ? "ERRORED" : "SUCCESS",
    error: errored ? errorText(statusErrored ? span.status.message : data.error) : undefined,
    input: undefined,
    output: undefined,
    [HEAD]: headOf(span, ctx.traceId, ctx.spanId),
  };
  if (data.input !== undefined) {
    wire.input = foreign
      ? data.input
      : type === "llm"
        ? (llmInputMessages(data.input, data.inputPinned ? 1 : (data.argumentCount ?? 1)) as unknown as JsonValue)
        : shapeValue(type, data.input);
  }
  if (data.output !== undefined) wire.output = foreign ? data.output : shapeValue(type, data.output, true);
  if (data.metadata) wire.metadata = data.metadata;
  const fields = data.fields;
  // for-in, not Object.keys: most spans have no fields, and a keys array would be made for each.
  for (const key in fields) if (Object.hasOwn(fields, key)) wire[key] = fields[key];
  // Online evaluation reads the span's own input and output (the vendor SDKs put the test case
  // there): the test case's, unless the app set them itself.
  if (!foreign) applyTestCase(wire, type, !data.inputPinned, !data.outputPinned);
  if (typeof wire.provider === "string") wire.provider = providerName(wire.provider);
  if (type === "agent") {
    wire.availableTools ??= [];
    wire.agentHandoffs ??= [];
  }
  return wire;
}

/** A span's ids and times as sent: never starting before its parent, never ending before it starts. */
function headOf(span: ReadableSpan, traceId: string, spanId: string): SpanHead {
  const start = sentStartOf(span);
  const end = start !== span.startTime && isLater(start, span.endTime) ? start : span.endTime;
  return { traceId, spanId, parentId: parentSpanIdOf(span), start, end };
}

/** Test-case fields the service reads flat on a span or trace, beside `llmTestCase`. */
const flatTestCaseFields = ["expectedOutput", "retrievalContext", "context", "toolsCalled", "expectedTools"] as const;

/**
 * With a test case, its input and actual output become the span's or trace's own (unless the
 * app set those itself: `useInput` / `useOutput` false), and its other fields are also sent
 * flat, the way the live service evaluates them.
 */
export function applyTestCase(wire: { [key: string]: unknown }, type: SpanType | "trace", useInput: boolean, useOutput: boolean): void {
  const tc = wire.llmTestCase;
  if (tc === null || typeof tc !== "object" || Array.isArray(tc)) return;
  const testCase = tc as { [key: string]: JsonValue };
  if (useInput && typeof testCase.input === "string") wire.input = type === "llm" ? [{ role: "user", content: testCase.input }] : testCase.input;
  if (useOutput && typeof testCase.actualOutput === "string") wire.output = testCase.actualOutput;
  for (const key of flatTestCaseFields) if (testCase[key] !== undefined && wire[key] === undefined) wire[key] = testCase[key];
}

/** Placeholders for the fields the service's published schema requires (wire-format notes). */
export const REQUIRED_FIELD_PLACEHOLDERS = { model: "unknown-model", embedder: "default-embedder" } as const;

/**
 * Fills `model` on llm spans and `embedder` on retriever spans when nothing set them, with the
 * documented placeholders; returns the fields it filled (the exporter warns once per field).
 */
export function fillRequired(wire: WireSpan): readonly ("model" | "embedder")[] {
  if (wire.type === "llm" && (typeof wire.model !== "string" || wire.model === "")) {
    wire.model = REQUIRED_FIELD_PLACEHOLDERS.model;
    return FILLED_MODEL;
  }
  if (wire.type === "retriever" && (typeof wire.embedder !== "string" || wire.embedder === "")) {
    wire.embedder = REQUIRED_FIELD_PLACEHOLDERS.embedder;
    return FILLED_EMBEDDER;
  }
  return FILLED_NONE;
}

const FILLED_MODEL = Object.freeze(["model"] as const);
const FILLED_EMBEDDER = Object.freeze(["embedder"] as const);
const FILLED_NONE = Object.freeze([] as const);

/** The `error` of an errored span: its status message, cut at MAX_ERROR_CHARS, else "error". */
function errorText(message: unknown): string {
  return typeof message === "string" && message ? truncateString(message, MAX_ERROR_CHARS) : "error";
}

/**
 * Shapes a captured value the way the spec types it: base span input/output are strings; llm
 * span input is a list of `{role, content}` and its output a string or such a list. Other
 * types' shapes are "not shown" in the spec and go as captured JSON.
 */
export function shapeValue(type: SpanType, value: JsonValue, isOutput = false): JsonValue {
  if (type === "base") return jsonText(value);
  if (type !== "llm") return value;
  if (isMessageList(value)) return value.map((m) => ({ role: m.role, content: jsonText(m.content) }));
  if (isOutput) return jsonText(value);
  if (Array.isArray(value) && value.length === 1 && isMessageList(value[0] ?? null)) return shapeValue(type, value[0]!);
  return [{ role: "user", content: jsonText(value) }];
}

function isMessageList(value: JsonValue): value is { role: string; content: JsonValue }[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((m) => m !== null && typeof m === "object" && !Array.isArray(m) && typeof m.role === "string" && "content" in m)
  );
}

/** Shapes a trace-level input/output: strings on the wire (spec 2.5). */
export function shapeTraceValue(value: JsonValue): string {
  return jsonText(value);
}
