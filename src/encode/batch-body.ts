import type { HrTime } from "@opentelemetry/api";
import type { RequestBody } from "../http/transport.js";
import { isScrubbed, redact } from "../logger.js";
import type { TraceView } from "../traces/trace-view.js";
import { ascii, JsonBytes, utf8Length } from "./json-bytes.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { type FilledReporter, type TraceReading, writeTrace } from "./wire-bytes.js";

/**
 * A trace taken for a request: its JSON bytes, written straight from its spans as it was taken,
 * until a body is made from them, then nothing but its record (a request in flight
 * holds only its bytes), or its own JSON text where one is needed again (a batch split after a
 * refusal, the single-trace form).
 */
export interface PreparedTrace {
  rec: TraceView;
  /** Where the trace's bytes are, `[start, end)`, until a body or a text is made from them. */
  slab: JsonBytes | undefined;
  start: number;
  end: number;
  /** The trace's JSON text, keys scrubbed, when it has one of its own. */
  json?: string;
  /** Spans in the trace, for the per-request span limit. */
  spanCount: number;
  endTime: HrTime;
}

/**
 * A slab: where a batch's traces are written as they are taken, `{"traces":[` then trace after
 * trace, so that nothing of a trace but its bytes lives on while the batch is taken, turn after
 * turn (objects held meanwhile would be copied by every minor GC). When the batch
 * turns out to be exactly the slab's traces, the slab is its body as it is ({@link slabBody});
 * otherwise each trace's bytes are copied into the bodies made ({@link encodeRun}).
 */
export function newSlab(initialBytes: number): JsonBytes {
  return openSlab(new JsonBytes(initialBytes));
}

/** A slab made ready for a batch again (one kept from an earlier batch: export/slab-pool.ts). */
export function openSlab(slab: JsonBytes): JsonBytes {
  slab.reset();
  slab.raw(HEAD);
  return slab;
}

/** Writes a trace into a slab (nothing is left written when writing throws). */
export function writeToSlab(slab: JsonBytes, rec: TraceView, trace: TraceReading, filled: FilledReporter, spanCount: number): PreparedTrace {
  const mark = slab.pos;
  if (mark > HEAD.length) slab.byte(0x2c);
  const start = slab.pos;
  try {
    writeTrace(slab, trace, filled);
  } catch (err) {
    slab.pos = mark;
    throw err;
  }
  return prepared(rec, slab, start, spanCount, trace.end);
}

/** A trace's bytes copied to the start of another slab (whose first trace it becomes). */
export function moveToSlab(p: PreparedTrace, slab: JsonBytes): PreparedTrace {
  const start = slab.pos;
  slab.copyFrom(p.slab!, p.start, p.end);
  return prepared(p.rec, slab, start, p.spanCount, p.endTime);
}

/** A trace whose bytes were just written in `[start, slab.pos)`: made in one place, so with one shape. */
function prepared(rec: TraceView, slab: JsonBytes, start: number, spanCount: number, endTime: HrTime): PreparedTrace {
  const p: PreparedTrace = { rec, slab, start, end: slab.pos, spanCount, endTime };
  keptShapes.preparedTrace = p;
  return p;
}

/**
 * The list-form body of `batch` when it is exactly the traces written in `slab`, in order, with
 * no secret in it; the slab is closed. Undefined otherwise.
 */
export function slabBody(slab: JsonBytes, batch: readonly PreparedTrace[], secrets: readonly (string | undefined)[]): Uint8Array | undefined {
  const first = batch[0];
  const last = batch[batch.length - 1];
  if (!first || !last || first.slab !== slab || first.start !== HEAD.length || last.slab !== slab || last.end !== slab.pos) return undefined;
  slab.byte(0x5d);
  slab.byte(0x7d);
  if (hasSecret(slab, secrets)) {
    slab.pos -= 2;
    return undefined;
  }
  return slab.view();
}

/** How a run of a batch is encoded. */
export interface EncodeOptions {
  /** The most bytes a body may have (a trace larger than that alone is sent alone). */
  maxBytes: number;
  /** Scrubbed from the text. */
  secrets: readonly (string | undefined)[];
  /** Where the body is written. */
  writer: JsonBytes;
}

/** A body made of the traces `batch[from, to)`. */
export interface EncodedRun {
  to: number;
  body: RequestBody;
}

/**
 * The list form's body, `{"traces":[...]}`, for as many traces of `batch` from `from` on as fit
 * in `maxBytes`, their bytes copied as they were written when taken: a trace that would
 * overflow the body is left for the next. No trace keeps a text of its own while its request is
 * in flight.
 */
export function encodeRun(batch: PreparedTrace[], from: number, o: EncodeOptions): EncodedRun {
  const w = o.writer;
  w.reset();
  w.raw(HEAD);
  let i = from;
  while (i < batch.length) {
    const p = batch[i]!;
    const mark = w.pos;
    if (i > from) w.byte(0x2c);
    if (p.json !== undefined) w.json(p.json);
    else w.copyFrom(p.slab!, p.start, p.end);
    if (i > from && w.pos + 2 > o.maxBytes) {
      w.pos = mark;
      break;
    }
    i++;
  }
  w.byte(0x5d);
  w.byte(0x7d);
  const body = hasSecret(w, o.secrets) ? redactedRun(batch, from, i, o) : { to: i, body: w.copy() };
  for (let k = from; k < body.to; k++) batch[k]!.slab = undefined;
  return body;
}

/** Whether a secret is in what was written. */
function hasSecret(w: JsonBytes, secrets: readonly (string | undefined)[]): boolean {
  for (const secret of secrets) if (isScrubbed(secret) && w.includes(secret, HEAD.length)) return true;
  return false;
}

/**
 * The run again as text, each trace's own scrubbed (rare: the app put the API key in a value):
 * as many as still fit in `maxBytes` ("[REDACTED]" may be longer than the key).
 */
function redactedRun(batch: PreparedTrace[], from: number, to: number, o: EncodeOptions): EncodedRun {
  const texts: string[] = [];
  let bytes = HEAD.length + 2;
  let end = from;
  for (; end < to; end++) {
    const text = traceText(batch[end]!, o.secrets);
    const added = utf8Length(text) + (texts.length > 0 ? 1 : 0);
    if (texts.length > 0 && bytes + added > o.maxBytes) break;
    texts.push(text);
    bytes += added;
  }
  return { to: end, body: `{"traces":[${texts.join(",")}]}` };
}

/** A trace's own JSON text (keys scrubbed), made on first use. */
export function traceText(p: PreparedTrace, secrets: readonly (string | undefined)[]): string {
  if (p.json === undefined) {
    p.json = redact(p.slab!.text(p.start, p.end), secrets);
    p.slab = undefined;
  }
  return p.json;
}

/**
 * Gives each trace of a sent batch its own text again, from the body it went in (for a split or
 * the single-trace form, after the service refused the batch): parsing the body keeps the order
 * of its fields, so stringifying each trace gives back exactly the text that was sent.
 */
export function recoverTraceTexts(batch: PreparedTrace[], body: RequestBody): void {
  if (batch.every((p) => p.json !== undefined)) return;
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  const traces = (JSON.parse(text) as { traces: unknown[] }).traces;
  for (let i = 0; i < batch.length; i++) batch[i]!.json ??= JSON.stringify(traces[i]);
}

/** `{"traces":[` */
const HEAD = ascii('{"traces":[');

