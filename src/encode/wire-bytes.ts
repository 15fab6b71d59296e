import type { HrTime } from "@opentelemetry/api";
import { ascii, type JsonBytes } from "./json-bytes.js";
import { HEAD, type SpanListKey, type WireSpan, type WireTrace } from "./wire.js";

/**
 * Writes wire traces, spans and late updates as JSON bytes: the text `JSON.stringify` makes of
 * them with their uuids and times in place (each object's fields in its own order), written from
 * the ids and times themselves. Values go through `JSON.stringify`, so they read as they always did.
 */

/** One trace of the list form (or the single-trace form's body). */
export function writeTrace(w: JsonBytes, t: WireTrace): void {
  const head = t[HEAD];
  w.raw(OPEN_UUID);
  w.uuid(head.traceId);
  field(w, NAME, t.name);
  times(w, head);
  field(w, STATUS, t.status);
  field(w, ENVIRONMENT, t.environment);
  for (let i = 0; i < LISTS.length; i++) {
    const list = t[LISTS[i]!];
    if (list === undefined) continue;
    w.raw(LIST_KEYS[i]!);
    writeSpans(w, list);
  }
  field(w, INPUT, t.input);
  field(w, OUTPUT, t.output);
  rest(w, t, TRACE_FIELDS);
  w.byte(0x7d);
}

/** A late update's body (`PUT /v1/traces/:uuid`): its span lists and fields, in its order. */
export function writeUpdate(w: JsonBytes, body: { readonly [key: string]: unknown }): void {
  w.byte(0x7b);
  let first = true;
  for (const key in body) {
    const v = body[key];
    if (v === undefined || !Object.hasOwn(body, key)) continue;
    const mark = w.pos;
    if (!first) w.byte(0x2c);
    w.string(key);
    w.byte(0x3a);
    if (LIST_NAMES.has(key) && Array.isArray(v)) writeSpans(w, v as WireSpan[]);
    else if (!w.value(v)) {
      w.pos = mark;
      continue;
    }
    first = false;
  }
  w.byte(0x7d);
}

function writeSpans(w: JsonBytes, spans: readonly WireSpan[]): void {
  w.byte(0x5b);
  for (let i = 0; i < spans.length; i++) {
    if (i > 0) w.byte(0x2c);
    writeSpan(w, spans[i]!);
  }
  w.byte(0x5d);
}

function writeSpan(w: JsonBytes, s: WireSpan): void {
  const head = s[HEAD];
  w.raw(OPEN_UUID);
  w.uuid(head.traceId, head.spanId);
  field(w, NAME, s.name);
  field(w, TYPE, s.type);
  field(w, STATUS, s.status);
  times(w, head);
  field(w, ERROR, s.error);
  if (head.parentId) {
    w.raw(PARENT);
    w.uuid(head.traceId, head.parentId);
  }
  field(w, INPUT, s.input);
  field(w, OUTPUT, s.output);
  rest(w, s, SPAN_FIELDS);
  w.byte(0x7d);
}

/** `,"startTime":...,"endTime":...` */
function times(w: JsonBytes, head: { readonly start: HrTime; readonly end: HrTime }): void {
  w.raw(START);
  w.time(head.start);
  w.raw(END);
  w.time(head.end);
}

/** `,"key":` + the value's JSON, unless JSON leaves the value out. */
function field(w: JsonBytes, key: Uint8Array, value: unknown): void {
  if (value === undefined) return;
  const mark = w.pos;
  w.raw(key);
  if (!w.value(value)) w.pos = mark;
}

/** The object's own fields other than those written by name, in its order. */
function rest(w: JsonBytes, o: object, written: ReadonlySet<string>): void {
  for (const key in o) {
    if (written.has(key) || !Object.hasOwn(o, key)) continue;
    const v = (o as Record<string, unknown>)[key];
    if (v === undefined) continue;
    const mark = w.pos;
    w.byte(0x2c);
    w.string(key);
    w.byte(0x3a);
    if (!w.value(v)) w.pos = mark;
  }
}

// Named here, not read from spanListKeys: wire.ts is still loading when this module is (a cycle
// through the runtime), and its constants are not there yet.
const LISTS = ["baseSpans", "llmSpans", "retrieverSpans", "agentSpans", "toolSpans"] as const satisfies readonly SpanListKey[];
const LIST_NAMES: ReadonlySet<string> = new Set(LISTS);
const LIST_KEYS = LISTS.map((k) => ascii(`,"${k}":`));
const OPEN_UUID = ascii('{"uuid":');
const NAME = ascii(',"name":');
const TYPE = ascii(',"type":');
const STATUS = ascii(',"status":');
const ERROR = ascii(',"error":');
const START = ascii(',"startTime":');
const END = ascii(',"endTime":');
const PARENT = ascii(',"parentUuid":');
const INPUT = ascii(',"input":');
const OUTPUT = ascii(',"output":');
const ENVIRONMENT = ascii(',"environment":');
const SPAN_FIELDS: ReadonlySet<string> = new Set(["name", "type", "status", "error", "input", "output"]);
const TRACE_FIELDS: ReadonlySet<string> = new Set(["name", "status", "environment", ...LISTS, "input", "output"]);
