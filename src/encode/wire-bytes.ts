import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import type { SpanData } from "../spans/span-data.js";
import { isUnfinished } from "../traces/unfinished.js";
import { ascii, JsonBytes } from "./json-bytes.js";
import { type FilledField, writeSpan } from "./span-bytes.js";
import { END_TIME, OPEN_UUID, START_TIME } from "./wire-keys.js";
import type { SpanListKey } from "./wire.js";

/**
 * Writes traces and late updates as JSON bytes, straight from their spans and span data
 * (span-bytes.ts): the text `JSON.stringify` would make of the service's objects (spec 2.5),
 * with no such object made. Values go through the byte writer's `value`, which writes what
 * `JSON.stringify` does.
 */

/** Hears of each required field a span was sent with a placeholder for. */
export type FilledReporter = (field: FilledField, span: ReadableSpan) => void;

/**
 * A trace as read for its request, its values final: what {@link writeTrace} writes. The spans
 * and their data go in the five lists by type, in their order; the rest of its fields after them.
 */
export interface TraceReading {
  traceId: string;
  name: unknown;
  start: HrTime;
  end: HrTime;
  status: "SUCCESS" | "ERRORED";
  environment: unknown;
  spans: readonly ReadableSpan[];
  /** The data of each span, as sent, read once (a foreign span's is made when read). */
  datas: readonly SpanData[];
  /** The types of the spans, one bit each ({@link TYPE_BITS}): a list with none of them is written empty without a pass over the spans. */
  types: number;
  input: JsonValue | undefined;
  output: JsonValue | undefined;
  /** The fields after `output`, in their order (tags, metadata, threadId ...), or undefined when none. */
  tail: { readonly [key: string]: unknown } | undefined;
}

/** One trace of the list form (or the single-trace form's body). */
export function writeTrace(w: JsonBytes, t: TraceReading, filled: FilledReporter): void {
  w.keyUuid(OPEN_UUID, t.traceId);
  const name = t.name;
  if (typeof name === "string") {
    w.raw(NAME);
    w.string(name);
  } else w.field(NAME, name);
  w.keyTime(START_TIME, t.start);
  w.keyTime(END_TIME, t.end);
  const environment = t.environment;
  if (typeof environment === "string") w.raw(statusAndEnvironment(t.status === "SUCCESS", environment));
  else {
    w.raw(t.status === "SUCCESS" ? STATUS_SUCCESS : STATUS_ERRORED);
    w.field(ENVIRONMENT, environment);
  }
  // The five lists as runs of constant bytes between the lists that have spans: the empty
  // lists between two that have spans are one copy.
  const runs = LIST_RUNS[t.types]!;
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    w.raw(run.bytes);
    if (run.list !== undefined) writeSpansOfType(w, t.spans, t.datas, run.list, filled);
  }
  w.field(INPUT, t.input);
  w.field(OUTPUT, t.output);
  const tail = t.tail;
  if (tail !== undefined) {
    for (const key in tail) if (Object.hasOwn(tail, key)) w.entry(key, tail[key]);
  }
  w.byte(0x7d);
}

/**
 * `,"status":"SUCCESS","environment":<environment>` (or ERRORED) as bytes, made once for the
 * environment of the last trace written (an app's traces mostly share theirs).
 */
function statusAndEnvironment(succeeded: boolean, environment: string): Uint8Array {
  if (environment !== environmentOf) {
    const w = new JsonBytes(64);
    w.string(environment);
    const text = w.view();
    succeededBytes = concat(STATUS_SUCCESS, ENVIRONMENT, text);
    erroredBytes = concat(STATUS_ERRORED, ENVIRONMENT, text);
    environmentOf = environment;
  }
  return succeeded ? succeededBytes : erroredBytes;
}

let environmentOf: string | undefined;
let succeededBytes: Uint8Array = new Uint8Array(0);
let erroredBytes: Uint8Array = new Uint8Array(0);

function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const part of parts) n += part.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const part of parts) {
    out.set(part, n);
    n += part.length;
  }
  return out;
}

/** The spans of one type, in their order, without the list's brackets (its run writes them). */
function writeSpansOfType(w: JsonBytes, spans: readonly ReadableSpan[], datas: readonly SpanData[], type: SpanType, filled: FilledReporter): void {
  let first = true;
  for (let i = 0; i < spans.length; i++) {
    const data = datas[i]!;
    if (data.type !== type) continue;
    if (!first) w.byte(0x2c);
    first = false;
    const span = spans[i]!;
    const field = writeSpan(w, span, data, isUnfinished(span) ? UNFINISHED : FINISHED);
    if (field !== undefined) filled(field, span);
  }
}

/** The spans of one list of a late update (or of a test's reading of a trace), each with its data read once. */
export class SpanRun {
  readonly spans: ReadableSpan[] = [];
  readonly datas: SpanData[] = [];

  constructor(
    /** As a request sends them (false: as mapped, without the exporter's placeholders of required fields and unfinished marks). */
    readonly asSent = true,
  ) {}

  add(span: ReadableSpan, data: SpanData): void {
    this.spans.push(span);
    this.datas.push(data);
  }
}

/**
 * A late update's body (`PUT /v1/traces/:uuid`): its span lists ({@link SpanRun}s) and fields,
 * in its order.
 */
export function writeUpdate(w: JsonBytes, body: { readonly [key: string]: unknown }, filled?: FilledReporter): void {
  w.byte(0x7b);
  let first = true;
  for (const key in body) {
    const v = body[key];
    if (v === undefined || !Object.hasOwn(body, key)) continue;
    const mark = w.pos;
    if (!first) w.byte(0x2c);
    w.string(key);
    w.byte(0x3a);
    if (v instanceof SpanRun) writeRun(w, v, filled);
    else if (!w.value(v)) {
      w.pos = mark;
      continue;
    }
    first = false;
  }
  w.byte(0x7d);
}

function writeRun(w: JsonBytes, run: SpanRun, filled: FilledReporter | undefined): void {
  w.byte(0x5b);
  for (let i = 0; i < run.spans.length; i++) {
    if (i > 0) w.byte(0x2c);
    const span = run.spans[i]!;
    const field = writeSpan(w, span, run.datas[i]!, !run.asSent ? AS_MAPPED : isUnfinished(span) ? UNFINISHED : FINISHED);
    if (field !== undefined) filled?.(field, span);
  }
  w.byte(0x5d);
}

const FINISHED = Object.freeze({ unfinished: false, fillRequired: true });
const UNFINISHED = Object.freeze({ unfinished: true, fillRequired: true });
const AS_MAPPED = Object.freeze({ unfinished: false, fillRequired: false });

/** One bit per span type, for {@link TraceReading.types}. */
export const TYPE_BITS: { readonly [T in SpanType]: number } = { base: 1, llm: 2, retriever: 4, agent: 8, tool: 16 };

// Named here, not read from spanListKeys: wire.ts is still loading when this module is (a cycle
// through the runtime), and its constants are not there yet.
const LISTS = [
  ["base", "baseSpans"],
  ["llm", "llmSpans"],
  ["retriever", "retrieverSpans"],
  ["agent", "agentSpans"],
  ["tool", "toolSpans"],
] as const satisfies readonly (readonly [SpanType, SpanListKey])[];
/**
 * For each set of span types a trace has ({@link TraceReading.types}), the lists written as runs:
 * the constant bytes up to the opening bracket of the next list that has spans (the empty lists
 * before it among them), then that list's spans; the last run closes the last such list and
 * writes the empty lists after it.
 */
const LIST_RUNS: readonly (readonly { bytes: Uint8Array; list: SpanType | undefined }[])[] = Array.from({ length: 32 }, (_, types) => {
  const runs: { bytes: Uint8Array; list: SpanType | undefined }[] = [];
  let text = "";
  for (const [type, key] of LISTS) {
    if ((types & TYPE_BITS[type]) === 0) {
      text += `,"${key}":[]`;
      continue;
    }
    runs.push({ bytes: ascii(`${text},"${key}":[`), list: type });
    text = "]";
  }
  runs.push({ bytes: ascii(text), list: undefined });
  return runs;
});
const NAME = ascii(',"name":');
const STATUS_SUCCESS = ascii(',"status":"SUCCESS"');
const STATUS_ERRORED = ascii(',"status":"ERRORED"');
const INPUT = ascii(',"input":');
const OUTPUT = ascii(',"output":');
const ENVIRONMENT = ascii(',"environment":');
