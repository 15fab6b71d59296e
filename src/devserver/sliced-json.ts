import type { TimeSlicer } from "./time-slicer.js";
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from "./json-chars.js";

/** Values whose JSON text is shorter than this are parsed or written in one native call. */
const PIECE_CHARS = 64 * 1024;

/** Thrown for text the scanner cannot follow, at index `at` (the text's length: it ended too soon). */
class ScanError extends Error {
  constructor(readonly at: number) {
    super("malformed JSON");
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Index just past the string starting at `i` (a quote). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  throw new ScanError(text.length);
}

/**
 * Index just past the array or object starting at `i`, or -1 when it does not end before `stop`
 * (then it is parsed member by member: the scan never walks a large value whole).
 */
function containerEnd(text: string, i: number, stop: number): number {
  let depth = 0;
  const last = Math.min(text.length, stop);
  for (let j = i; j < last; j++) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) j = stringEnd(text, j) - 1;
    else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return j + 1;
  }
  if (last === text.length) throw new ScanError(text.length);
  return -1;
}

/** Index just past the string, number or literal starting at `i`. */
function scalarEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === QUOTE) return stringEnd(text, i);
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
    j++;
  }
  if (j === i) throw new ScanError(i);
  return j;
}

/** A small value inside a large text that `JSON.parse` refused: where the value starts, and why. */
class PieceError {
  constructor(
    readonly at: number,
    readonly cause: unknown,
  ) {}
}

/** `JSON.parse` of `text` from `from` to `to`; its refusal located in the whole text. */
function parsePiece(text: string, from: number, to: number): unknown {
  try {
    return JSON.parse(text.slice(from, to));
  } catch (err) {
    throw new PieceError(from, err);
  }
}

/**
 * The value starting at `i` and the index just past it: a small one (shorter than
 * {@link PIECE_CHARS}) in one native `JSON.parse`, a large array or object member by member.
 */
async function parseValue(text: string, i: number, slicer: TimeSlicer): Promise<[unknown, number]> {
  if (slicer.due()) await slicer.yield();
  const c = text.charCodeAt(i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    const end = containerEnd(text, i, i + PIECE_CHARS);
    return end === -1 ? parseContainer(text, i, slicer) : [parsePiece(text, i, end), end];
  }
  const end = scalarEnd(text, i);
  return [parsePiece(text, i, end), end];
}

/** A large array or object, member by member; the index just past its closing bracket. */
async function parseContainer(text: string, start: number, slicer: TimeSlicer): Promise<[unknown, number]> {
  const open = text.charCodeAt(start);
  const close = open === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
  const list: unknown[] = [];
  const object: Record<string, unknown> = {};
  const result = open === OPEN_BRACE ? object : list;
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === close) return [result, i + 1];
  for (;;) {
    if (open === OPEN_BRACE) {
      if (text.charCodeAt(i) !== QUOTE) throw new ScanError(i);
      const keyEnd = stringEnd(text, i);
      const key = JSON.parse(text.slice(i, keyEnd)) as string;
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== COLON) throw new ScanError(i);
      const [value, vEnd] = await parseValue(text, skipSpace(text, i + 1), slicer);
      // As JSON.parse does: every key, `__proto__` included, becomes an own property.
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      i = skipSpace(text, vEnd);
    } else {
      // A run is up to 64 KB of text: the clock is read after every one.
      if (slicer.dueNow()) await slicer.yield();
      let vEnd = parseItemRun(text, i, list);
      if (vEnd === -1) {
        const [value, end] = await parseValue(text, i, slicer);
        list.push(value);
        vEnd = end;
      }
      i = skipSpace(text, vEnd);
    }
    const c = text.charCodeAt(i);
    if (c === close) return [result, i + 1];
    if (c !== COMMA) throw new ScanError(i);
    i = skipSpace(text, i + 1);
  }
}

/**
 * Parses the small items of an array from `i` on, as many as fit in {@link PIECE_CHARS}, in one
 * native call (a trace's spans, one `JSON.parse` each, were a tenth of ingest); pushes them on
 * `list` and returns the index just past the last. Returns -1 when the item at `i` is not small:
 * it is parsed on its own. The run stops before anything the scan cannot follow and at the array's
 * end, and when the run does not parse as a whole its items are parsed one by one: an error is
 * the one the item-by-item parse raises.
 */
function parseItemRun(text: string, i: number, list: unknown[]): number {
  const limit = i + PIECE_CHARS;
  const ends: number[] = [];
  let j = i;
  try {
    for (;;) {
      const c = text.charCodeAt(j);
      const end = c === OPEN_BRACE || c === OPEN_BRACKET ? containerEnd(text, j, limit) : scalarEnd(text, j);
      if (end === -1 || end > limit) break;
      ends.push(j, end);
      const next = skipSpace(text, end);
      if (text.charCodeAt(next) !== COMMA) break;
      j = skipSpace(text, next + 1);
    }
  } catch (err) {
    if (!(err instanceof ScanError)) throw err;
  }
  if (ends.length === 0) return -1;
  const last = ends[ends.length - 1]!;
  if (ends.length > 2) {
    let items: unknown[] | undefined;
    try {
      items = JSON.parse(`[${text.slice(i, last)}]`) as unknown[];
    } catch {
      // Parsed one by one below: the first malformed item names the error.
    }
    if (items?.length === ends.length / 2) {
      for (const item of items) list.push(item);
      return last;
    }
  }
  for (let k = 0; k < ends.length; k += 2) list.push(parsePiece(text, ends[k]!, ends[k + 1]!));
  return last;
}

/**
 * `JSON.parse` in slices: a large array or object is parsed member by member, yielding to the
 * event loop between members, so that a 30 MB body never holds it for long. One pass over the
 * text (a value is scanned whole only when it is small). Same result as `JSON.parse`, and a
 * `SyntaxError` for malformed text (JSON.parse's own for a small text; for a large one, naming
 * the position where the scan stopped).
 */
export async function parseJsonSliced(text: string, slicer: TimeSlicer): Promise<unknown> {
  try {
    const [value, end] = await parseValue(text, skipSpace(text, 0), slicer);
    const rest = skipSpace(text, end);
    if (rest !== text.length) throw new ScanError(rest);
    return value;
  } catch (err) {
    if (err instanceof PieceError) {
      // The engine's message names a position within the piece (V8), or none (JavaScriptCore):
      // the error names one in the whole text either way.
      const native = err.cause instanceof Error ? err.cause.message : String(err.cause);
      const within = /position (\d+)/.exec(native);
      if (within) {
        const at = err.at + Number(within[1]);
        throw new SyntaxError(`Unexpected character ${JSON.stringify(text.charAt(at))} in JSON at position ${at}`);
      }
      throw new SyntaxError(`${native} in the value at position ${err.at}`);
    }
    if (!(err instanceof ScanError)) throw err;
    // A small text: JSON.parse names the error. A large one is not handed to it (it would hold
    // the event loop for the whole text): the error is named from where the scan stopped.
    if (text.length < PIECE_CHARS) return JSON.parse(text);
    throw new SyntaxError(err.at >= text.length ? "Unexpected end of JSON input" : `Unexpected character ${JSON.stringify(text.charAt(err.at))} in JSON at position ${err.at}`);
  }
}

/** Arrays longer than this are written item by item. */
const SPLIT_LENGTH = 32;

/** How deep {@link isBulky} looks for a long array (a journal line holds a trace that holds its spans). */
const BULK_DEPTH = 3;

/**
 * Whether a value is a long array, or holds one within {@link BULK_DEPTH} levels: written
 * member by member.
 */
export function isBulky(value: unknown, depth = BULK_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value) && value.length > SPLIT_LENGTH) return true;
  if (depth === 0) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (isBulky(v, depth - 1)) return true;
  return false;
}

/** JSON text of a value inside an array (`undefined` and functions become `null`, as JSON.stringify does). */
const itemText = (v: unknown) => JSON.stringify(v) ?? "null";

async function writeValue(value: unknown, slicer: TimeSlicer, out: (piece: string) => void): Promise<void> {
  if (!isBulky(value)) {
    out(itemText(value));
    return;
  }
  if (Array.isArray(value)) {
    out("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out(",");
      const item: unknown = value[i];
      if (isBulky(item)) await writeValue(item, slicer, out);
      else out(itemText(item));
      if (slicer.due()) await slicer.yield();
    }
    out("]");
    return;
  }
  out("{");
  let first = true;
  for (const [k, v] of Object.entries(value as object)) {
    if (v === undefined || typeof v === "function") continue;
    out(`${first ? "" : ","}${JSON.stringify(k)}:`);
    first = false;
    if (isBulky(v)) await writeValue(v, slicer, out);
    else out(itemText(v));
    if (slicer.due()) await slicer.yield();
  }
  out("}");
}

/**
 * `JSON.stringify` in slices, as pieces handed to `out` (same text once joined, for plain JSON
 * data: no `toJSON`), yielding to the event loop between members of large arrays and objects.
 */
export function writeJsonSliced(value: unknown, slicer: TimeSlicer, out: (piece: string) => void): Promise<void> {
  return writeValue(value, slicer, out);
}

/** {@link writeJsonSliced} into one string. */
export async function stringifyJsonSliced(value: unknown, slicer: TimeSlicer): Promise<string> {
  const pieces: string[] = [];
  await writeJsonSliced(value, slicer, (p) => pieces.push(p));
  return pieces.join("");
}
