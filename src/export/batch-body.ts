import type { HrTime } from "@opentelemetry/api";
import type { RequestBody } from "../http/transport.js";
import { redact } from "../logger.js";
import type { TraceRecord } from "./trace-record.js";
import type { WireTrace } from "./wire.js";

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
  /** Estimated bytes per span, to size the pieces stringified at once; updated from what is made. */
  spanBytes: { value: number };
  /** After this `performance.now()`, the run ends with what it has (at least one piece). */
  deadline: number;
}

/** A body made of the traces `batch[from, to)`. */
export interface EncodedRun {
  to: number;
  body: RequestBody;
}

/**
 * The list form's body, `{"traces":[...]}`, for as many traces of `batch` from `from` on as fit
 * in `maxBytes` and in the time left. The wire objects are stringified a piece of several traces
 * at a time (about {@link PIECE_BYTES} of text): per trace, about half the time and allocation
 * of a call each, and no trace keeps a text of its own while its request is in flight. A piece
 * that would overflow the body is made again trace by trace, so a body never exceeds the limit
 * because of an estimate. Each piece is written straight into the body's buffer.
 */
export function encodeRun(batch: PreparedTrace[], from: number, o: EncodeOptions): EncodedRun {
  const pieces: string[] = [];
  const lengths: number[] = [];
  // `{"traces":` + pieces, each `[...]`, joined by overwriting a `]` with `,` + `}`.
  let bytes = HEAD.length + 1;
  let i = from;
  let oneAtATime = false;
  while (i < batch.length) {
    let j = i + 1;
    if (!oneAtATime && batch[i]!.wire !== undefined) {
      let estimate = batch[i]!.spanCount * o.spanBytes.value;
      while (j < batch.length && batch[j]!.wire !== undefined && estimate < PIECE_BYTES && j - i < MAX_PIECE_TRACES) {
        estimate += batch[j]!.spanCount * o.spanBytes.value;
        j++;
      }
    }
    const text = pieceText(batch, i, j, o.secrets);
    const length = utf8Length(text);
    const added = pieces.length === 0 ? length : length - 1;
    if (bytes + added > o.maxBytes) {
      // Made again trace by trace: as many as fit go in this body.
      if (j - i > 1) {
        oneAtATime = true;
        continue;
      }
      if (pieces.length > 0) break;
    }
    let spans = 0;
    for (let k = i; k < j; k++) {
      spans += batch[k]!.spanCount;
      batch[k]!.wire = undefined;
    }
    if (spans > 0) o.spanBytes.value = Math.max(MIN_SPAN_BYTES, Math.ceil((o.spanBytes.value + length / spans) / 2));
    pieces.push(text);
    lengths.push(length);
    bytes += added;
    i = j;
    if (performance.now() > o.deadline) break;
  }
  return { to: i, body: join(pieces, lengths, bytes) };
}

/** A trace's own JSON text (keys scrubbed), made on first use. */
export function traceText(p: PreparedTrace, secrets: readonly (string | undefined)[]): string {
  if (p.json === undefined) {
    p.json = redact(JSON.stringify(p.wire), secrets);
    p.wire = undefined;
  }
  return p.json;
}

/**
 * Gives each trace of a sent batch its own text again, from the body it went in (for a split or
 * the single-trace form, after the service refused the batch): the body is JSON made by
 * `JSON.stringify`, so parsing it and stringifying each trace gives back exactly what was sent.
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
/** Text stringified in one call: large enough to spread the call's cost, small enough to redo. */
const PIECE_BYTES = 32 * 1024;
const MAX_PIECE_TRACES = 64;

const HEAD = '{"traces":';

/** `[t1,t2,...]` for the traces `batch[from, to)`: one call for wire objects, else their texts. */
function pieceText(batch: PreparedTrace[], from: number, to: number, secrets: readonly (string | undefined)[]): string {
  if (to - from === 1) return `[${traceText(batch[from]!, secrets)}]`;
  const wires: WireTrace[] = [];
  for (let k = from; k < to; k++) wires.push(batch[k]!.wire!);
  return redact(JSON.stringify(wires), secrets);
}

const utf8Length: (s: string) => number =
  typeof Buffer !== "undefined" ? (s) => Buffer.byteLength(s, "utf8") : (s) => new TextEncoder().encode(s).length;

/** The body as text: the pieces' traces in one list. */
function joinedText(pieces: string[]): string {
  return `${HEAD}[${pieces.map((p) => p.slice(1, -1)).join(",")}]}`;
}

/**
 * `{"traces":` + the pieces + `}`, the pieces `[a,b]` `[c]` joined as `[a,b,c]`: each is written
 * where the one before ends, over its `]`, which then becomes `,`. Without `Buffer`, the text.
 */
function join(pieces: string[], lengths: number[], bytes: number): RequestBody {
  if (typeof Buffer === "undefined") return joinedText(pieces);
  const buf = Buffer.allocUnsafe(bytes);
  let at = buf.write(HEAD, 0, "latin1");
  for (let k = 0; k < pieces.length; k++) {
    if (k > 0) at--;
    const written = buf.write(pieces[k]!, at, "utf8");
    // Every byte is written when the lengths agree (they are measured the same way); else the text.
    if (written !== lengths[k]) return joinedText(pieces);
    if (k > 0) buf[at] = 0x2c; // ,
    at += written;
  }
  buf[at] = 0x7d; // }
  return buf;
}
