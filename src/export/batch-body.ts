import type { HrTime } from "@opentelemetry/api";
import type { RequestBody } from "../http/transport.js";
import { isScrubbed, redact } from "../logger.js";
import type { TraceRecord } from "./trace-record.js";
import type { WireTrace } from "./wire.js";
import { ascii, type JsonBytes, utf8Length } from "./json-bytes.js";
import { writeTrace } from "./wire-bytes.js";

/**
 * A trace taken for a request: its wire object until a body is made from it, then nothing but
 * its record (a request in flight holds only its bytes), or its own JSON text where one is
 * needed again (a batch split after a refusal, the single-trace form).
 */
export interface PreparedTrace {
  rec: TraceRecord;
  wire: WireTrace | undefined;
  /** The trace's JSON text, keys scrubbed, when it has one of its own. */
  json?: string;
  /** Spans in the trace, for the per-request span limit. */
  spanCount: number;
  endTime: HrTime;
}

/** How a run of a batch is encoded. */
export interface EncodeOptions {
  /** The most bytes a body may have (a trace larger than that alone is sent alone). */
  maxBytes: number;
  /** Scrubbed from the text. */
  secrets: readonly (string | undefined)[];
  /** Estimated bytes per span (for the batches taken); updated from what is written. */
  spanBytes: { value: number };
  /** Longest stretch of writing in one turn: after it, writing goes on after `nextTurn()`. */
  sliceMillis: number;
  nextTurn: () => Promise<void>;
  /** Where the body is written (nothing else may write there until the run is returned). */
  writer: JsonBytes;
}

/** A body made of the traces `batch[from, to)`, but for those that could not be written. */
export interface EncodedRun {
  to: number;
  body: RequestBody;
  /** Traces of `[from, to)` that could not be written (a bug of ours), with why; not in the body. */
  failed: { p: PreparedTrace; err: unknown }[];
}

/**
 * The list form's body, `{"traces":[...]}`, for as many traces of `batch` from `from` on as fit
 * in `maxBytes`, written as bytes trace after trace (wire-bytes.ts), a slice of `sliceMillis` per
 * turn of the event loop: a trace that would overflow the body is taken back and left for the
 * next. A trace that cannot be written is left out and reported, its batch-mates go. No trace
 * keeps a text of its own while its request is in flight.
 */
export async function encodeRun(batch: PreparedTrace[], from: number, o: EncodeOptions): Promise<EncodedRun> {
  const w = o.writer;
  let deadline = performance.now() + o.sliceMillis;
  w.reset();
  w.raw(HEAD);
  const failed: { p: PreparedTrace; err: unknown }[] = [];
  let i = from;
  let written = 0;
  let spans = 0;
  while (i < batch.length) {
    const p = batch[i]!;
    const mark = w.pos;
    if (written > 0) w.byte(0x2c);
    try {
      if (p.wire !== undefined) writeTrace(w, p.wire);
      else w.json(p.json!);
    } catch (err) {
      w.pos = mark;
      failed.push({ p, err });
      i++;
      continue;
    }
    if (written > 0 && w.pos + 2 > o.maxBytes) {
      w.pos = mark;
      break;
    }
    written++;
    spans += p.spanCount;
    i++;
    if (i < batch.length && performance.now() > deadline) {
      await o.nextTurn();
      deadline = performance.now() + o.sliceMillis;
    }
  }
  w.byte(0x5d);
  w.byte(0x7d);
  const bytes = w.pos;
  if (spans > 0) o.spanBytes.value = Math.max(MIN_SPAN_BYTES, Math.ceil((o.spanBytes.value + bytes / spans) / 2));
  const body = hasSecret(w, o.secrets) ? redactedRun(batch, from, i, failed, o) : { to: i, body: w.copy(), failed };
  for (let k = from; k < body.to; k++) batch[k]!.wire = undefined;
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
function redactedRun(batch: PreparedTrace[], from: number, to: number, failed: EncodedRun["failed"], o: EncodeOptions): EncodedRun {
  const skip = new Set(failed.map((f) => f.p));
  const texts: string[] = [];
  let bytes = HEAD.length + 2;
  let end = from;
  for (; end < to; end++) {
    const p = batch[end]!;
    if (skip.has(p)) continue;
    const text = traceText(p, o.secrets, o.writer);
    const added = utf8Length(text) + (texts.length > 0 ? 1 : 0);
    if (texts.length > 0 && bytes + added > o.maxBytes) break;
    texts.push(text);
    bytes += added;
  }
  return { to: end, body: `{"traces":[${texts.join(",")}]}`, failed: failed.filter((f) => batch.indexOf(f.p) < end) };
}

/** A trace's own JSON text (keys scrubbed), made on first use. */
export function traceText(p: PreparedTrace, secrets: readonly (string | undefined)[], w: JsonBytes): string {
  if (p.json === undefined) {
    w.reset();
    writeTrace(w, p.wire!);
    p.json = redact(w.text(), secrets);
    p.wire = undefined;
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

/** Estimated bytes of a span in a body before any was measured, and the least estimate. */
export const INITIAL_SPAN_BYTES = 4096;
const MIN_SPAN_BYTES = 128;

/** `{"traces":[` */
const HEAD = ascii('{"traces":[');

