import { type HrTime, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { SpanType } from "../protocol/types.js";
import { providerName } from "../semconv/providers.js";
import type { JsonValue } from "../spans/json-value.js";
import { parentSpanIdOf, sentStartOf, type SpanData } from "../spans/span-data.js";
import { isLater } from "../spans/time.js";
import { UNFINISHED_SPAN_KEY } from "../traces/unfinished.js";
import { MAX_ERROR_CHARS, MAX_NAME_CHARS, truncateString } from "../util/string-limits.js";
import { ascii, type JsonBytes } from "./json-bytes.js";
import { llmInputMessages } from "./llm-input.js";
import { END_TIME, OPEN_UUID, PARENT_UUID, START_TIME } from "./wire-keys.js";
import { FLAT_TEST_CASE_FIELDS, REQUIRED_FIELD_PLACEHOLDERS, shapeValue } from "./wire.js";

/**
 * A span as `POST /v1/traces` carries it (spec 2.5, wire-format "Span"), written as JSON bytes
 * straight from the span and its span data: no object is made for it on the way. Our own spans
 * carry their data from their start; a span of another instrumentation carries what the bridge
 * read it as, by its semantic convention, when it ended (bridge/foreign-span.ts).
 *
 * The fields, in this order: `uuid`, `name`, `type`, `status`, `startTime`, `endTime`, `error`,
 * `parentUuid`, `input`, `output`; then `metadata`, the span's fields in their order (type
 * fields, test-case fields, `metricCollection`, `llmTestCase`), the test case's fields sent flat,
 * an agent's empty tool lists, the placeholder of a required field nothing set, and the metadata
 * of a span sent unfinished. A field of the span data named like one of the first ten stands in
 * for it where it is (as the wire objects this replaced had it). Every string is bounded: the name
 * by MAX_NAME_CHARS, the error by MAX_ERROR_CHARS, captured values (and the values of foreign
 * spans, like them) when shaped.
 */

/** The required field a span was sent with a placeholder for (the exporter warns once per field). */
export type FilledField = keyof typeof REQUIRED_FIELD_PLACEHOLDERS;

/** How a span is written. */
export interface SpanWriteOptions {
  /** Sent before it ended: its metadata says so. */
  unfinished: boolean;
  /** Whether a required field nothing set gets its placeholder (false: the span as mapped, for a test's reading). */
  fillRequired: boolean;
}

/**
 * Writes a span's JSON; returns the required field it filled with a placeholder, if any.
 * `data` is the span's data as sent, read once (a foreign span's is made when read).
 */
export function writeSpan(w: JsonBytes, span: ReadableSpan, data: SpanData, o: SpanWriteOptions): FilledField | undefined {
  const ctx = span.spanContext();
  const traceId = ctx.traceId;
  const type = data.type;
  const fields = data.fields;
  const statusErrored = span.status.code === SpanStatusCode.ERROR;
  // A span of another instrumentation may say OK where its convention reads an error.
  const errored = statusErrored || data.error !== undefined;
  const named = hasNamedField(fields);
  const start = sentStartOf(span);
  // Never ending before it starts (its start may have been moved to its parent's).
  const end = start !== span.startTime && isLater(start, span.endTime) ? start : span.endTime;

  w.keyUuid(OPEN_UUID, traceId, ctx.spanId);
  if (named) {
    writeNamedHead(w, span, data, errored, statusErrored, start, end);
  } else {
    w.raw(NAME);
    const name = sentName(span, data);
    w.string(name);
    w.raw(TYPE_STATUS[type][errored ? 1 : 0]);
    w.keyTime(START_TIME, start);
    w.keyTime(END_TIME, end);
    if (errored) {
      w.raw(ERROR);
      w.string(errorText(statusErrored ? span.status.message : data.error));
    }
    const parentId = parentSpanIdOf(span);
    if (parentId) {
      w.keyUuid(PARENT_UUID, traceId, parentId);
    }
    w.field(INPUT, sentInput(data));
    w.field(OUTPUT, sentOutput(data));
  }
  return writeRest(w, data, o);
}

/** The name a span is sent with: its convention's (a foreign span), else its own, bounded. */
export function sentName(span: ReadableSpan, data: SpanData): string {
  return data.name ?? truncateString(typeof span.name === "string" ? span.name : String(span.name), MAX_NAME_CHARS);
}

/** A span's `input` as sent (undefined: none): shaped for its type, its test case's when it has one. */
export function sentInput(data: SpanData): JsonValue | undefined {
  const fields = data.fields;
  if (data.foreign === true) return Object.hasOwn(fields, "input") ? fields.input : data.input;
  const tc = testCaseOf(fields);
  if (tc !== undefined && !data.inputPinned && typeof tc.input === "string") return data.type === "llm" ? [{ role: "user", content: tc.input }] : tc.input;
  if (Object.hasOwn(fields, "input")) return fields.input;
  const input = data.input;
  if (input === undefined) return undefined;
  return data.type === "llm" ? (llmInputMessages(input, data.inputPinned ? 1 : (data.argumentCount ?? 1)) as unknown as JsonValue) : shapeValue(data.type, input);
}

/** A span's `output` as sent (undefined: none): shaped for its type, its test case's when it has one. */
export function sentOutput(data: SpanData): JsonValue | undefined {
  const fields = data.fields;
  if (data.foreign === true) return Object.hasOwn(fields, "output") ? fields.output : data.output;
  const tc = testCaseOf(fields);
  if (tc !== undefined && !data.outputPinned && typeof tc.actualOutput === "string") return tc.actualOutput;
  if (Object.hasOwn(fields, "output")) return fields.output;
  const output = data.output;
  return output === undefined ? undefined : shapeValue(data.type, output, true);
}

/** The head of a span whose fields name one of its own (`name`, `type` ...): the field's value stands in. */
function writeNamedHead(w: JsonBytes, span: ReadableSpan, data: SpanData, errored: boolean, statusErrored: boolean, start: HrTime, end: HrTime): void {
  const fields = data.fields;
  const own = (key: string, value: unknown): unknown => (Object.hasOwn(fields, key) ? fields[key] : value);
  w.field(NAME, own("name", sentName(span, data)));
  w.field(TYPE, own("type", data.type));
  w.field(STATUS, own("status", errored ? "ERRORED" : "SUCCESS"));
  w.keyTime(START_TIME, start);
  w.keyTime(END_TIME, end);
  w.field(ERROR, own("error", errored ? errorText(statusErrored ? span.status.message : data.error) : undefined));
  const parentId = parentSpanIdOf(span);
  if (parentId) {
    w.keyUuid(PARENT_UUID, span.spanContext().traceId, parentId);
  }
  w.field(INPUT, sentInput(data));
  w.field(OUTPUT, sentOutput(data));
}

/**
 * Everything after `output`, in the order the fields were set: `metadata`, the span's fields,
 * the test case's flat fields, an agent's tool lists, a required field's placeholder, the
 * unfinished mark. Ends the object.
 */
function writeRest(w: JsonBytes, data: SpanData, o: SpanWriteOptions): FilledField | undefined {
  const fields = data.fields;
  const type = data.type;
  let metadataWritten = false;
  if (data.metadata) {
    writeMetadata(w, Object.hasOwn(fields, "metadata") ? fields.metadata : data.metadata, o.unfinished);
    metadataWritten = true;
  }
  // for-in, not Object.keys: most spans have one field or none, and a keys array would be made for each.
  for (const key in fields) {
    if (!Object.hasOwn(fields, key) || HEAD_FIELDS.has(key)) continue;
    const v = fields[key];
    if (key === "metadata") {
      if (!metadataWritten) writeMetadata(w, v, o.unfinished);
      metadataWritten = true;
    } else w.entry(key, fieldValue(type, key, v, o.fillRequired));
  }
  const tc = data.foreign === true ? undefined : testCaseOf(fields);
  if (tc !== undefined) {
    for (const key of FLAT_TEST_CASE_FIELDS) if (tc[key] !== undefined && fields[key] === undefined) w.entry(key, tc[key]);
  }
  if (type === "agent") {
    if (!Object.hasOwn(fields, "availableTools")) w.raw(NO_AVAILABLE_TOOLS);
    if (!Object.hasOwn(fields, "agentHandoffs")) w.raw(NO_AGENT_HANDOFFS);
  }
  const filled = o.fillRequired ? filledField(type, fields) : undefined;
  if (filled !== undefined && !Object.hasOwn(fields, filled)) w.entry(filled, REQUIRED_FIELD_PLACEHOLDERS[filled]);
  if (o.unfinished && !metadataWritten) writeMetadata(w, undefined, true);
  w.byte(0x7d);
  return filled;
}

/** A field's value as sent: a provider by its known name, an agent's missing tool lists empty, a required field's placeholder. */
function fieldValue(type: SpanType, key: string, v: JsonValue | undefined, fill: boolean): JsonValue | undefined {
  if (key === "provider") return typeof v === "string" ? providerName(v) : v;
  if (type === "agent" && (key === "availableTools" || key === "agentHandoffs")) return v ?? [];
  if (fill && key === REQUIRED_FIELD[type] && !isSetText(v)) return REQUIRED_FIELD_PLACEHOLDERS[key as FilledField];
  return v;
}

/** The required field of a span's type nothing set, if any. */
function filledField(type: SpanType, fields: { [key: string]: JsonValue }): FilledField | undefined {
  const required = REQUIRED_FIELD[type];
  return required !== undefined && !isSetText(fields[required]) ? required : undefined;
}

const isSetText = (v: JsonValue | undefined): boolean => typeof v === "string" && v !== "";

/** `,"metadata":` and the metadata, with the unfinished mark when the span was sent before it ended. */
function writeMetadata(w: JsonBytes, metadata: JsonValue | undefined, unfinished: boolean): void {
  const value = unfinished ? { ...(metadata as { [key: string]: JsonValue } | undefined), [UNFINISHED_SPAN_KEY]: true } : metadata;
  w.field(METADATA, value);
}

/** The test case a span's fields carry, when it is an object. */
function testCaseOf(fields: { [key: string]: JsonValue }): { [key: string]: JsonValue } | undefined {
  const tc = fields.llmTestCase;
  if (tc === null || typeof tc !== "object" || Array.isArray(tc) || !Object.hasOwn(fields, "llmTestCase")) return undefined;
  return tc;
}

/** Whether a field is named like one of the span's own first ten (none is, from our own checks). */
function hasNamedField(fields: { [key: string]: JsonValue }): boolean {
  for (const key in fields) if (OWN_FIELDS.has(key) && Object.hasOwn(fields, key)) return true;
  return false;
}

/** The `error` of an errored span: its status message, cut at MAX_ERROR_CHARS, else "error". */
function errorText(message: unknown): string {
  return typeof message === "string" && message ? truncateString(message, MAX_ERROR_CHARS) : "error";
}

/** The field each type requires in practice, filled with a placeholder when nothing set it. */
const REQUIRED_FIELD: { readonly [T in SpanType]?: FilledField } = { llm: "model", retriever: "embedder" };

/** The fields written by name before the span's own fields (the rest writes none of them again). */
const HEAD_FIELDS: ReadonlySet<string> = new Set(["name", "type", "status", "error", "input", "output"]);
/** Fields the span's data names like one written by name: then its value stands in (see {@link writeNamedHead}). */
const OWN_FIELDS: ReadonlySet<string> = new Set(["name", "type", "status", "error"]);

const NAME = ascii(',"name":');
const TYPE = ascii(',"type":');
const STATUS = ascii(',"status":');
const ERROR = ascii(',"error":');
const INPUT = ascii(',"input":');
const OUTPUT = ascii(',"output":');
const METADATA = ascii(',"metadata":');
const NO_AVAILABLE_TOOLS = ascii(',"availableTools":[]');
const NO_AGENT_HANDOFFS = ascii(',"agentHandoffs":[]');

/** `,"type":"<type>","status":"<status>"` for each type, succeeded and errored: one copy for two fields. */
const TYPE_STATUS: { readonly [T in SpanType]: readonly [Uint8Array, Uint8Array] } = {
  base: typeStatus("base"),
  llm: typeStatus("llm"),
  retriever: typeStatus("retriever"),
  agent: typeStatus("agent"),
  tool: typeStatus("tool"),
};

function typeStatus(type: SpanType): [Uint8Array, Uint8Array] {
  return [ascii(`,"type":"${type}","status":"SUCCESS"`), ascii(`,"type":"${type}","status":"ERRORED"`)];
}
