import type { TimeSlicer } from "./time-slicer.js";
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from "./json-chars.js";

/** Values whose JSON text is shorter than this are parsed or written in one native call. */
const PIECE_CHARS = 64 * 1024;

/** Thrown for text the scanner cannot follow; the caller lets `JSON.parse` name the error. */
class ScanError extends Error {}

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
  throw new ScanError();
}

/** Index just past the JSON value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) j = stringEnd(text, j) - 1;
      else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return j + 1;
    }
    throw new ScanError();
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
    j++;
  }
  if (j === i) throw new ScanError();
  return j;
}

/** One member: small ones parsed natively right away, large ones member by member. */
async function parseMember(text: string, start: number, end: number, slicer: TimeSlicer): Promise<unknown> {
  if (slicer.due()) await slicer.yield();
  return end - start < PIECE_CHARS ? JSON.parse(text.slice(start, end)) : parseRange(text, start, end, slicer);
}

async function parseRange(text: string, start: number, end: number, slicer: TimeSlicer): Promise<unknown> {
  const open = text.charCodeAt(start);
  if (end - start < PIECE_CHARS || (open !== OPEN_BRACE && open !== OPEN_BRACKET)) return JSON.parse(text.slice(start, end));
  const close = open === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
  const list: unknown[] = [];
  const object: Record<string, unknown> = {};
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === close) return open === OPEN_BRACE ? object : list;
  for (;;) {
    if (open === OPEN_BRACE) {
      if (text.charCodeAt(i) !== QUOTE) throw new ScanError();
      const keyEnd = stringEnd(text, i);
      const key = JSON.parse(text.slice(i, keyEnd)) as string;
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== COLON) throw new ScanError();
      i = skipSpace(text, i + 1);
      const vEnd = valueEnd(text, i);
      // As JSON.parse does: every key, `__proto__` included, becomes an own property.
      Object.defineProperty(object, key, { value: await parseMember(text, i, vEnd, slicer), enumerable: true, writable: true, configurable: true });
      i = skipSpace(text, vEnd);
    } else {
      const vEnd = valueEnd(text, i);
      list.push(await parseMember(text, i, vEnd, slicer));
      i = skipSpace(text, vEnd);
    }
    const c = text.charCodeAt(i);
    if (c === close) break;
    if (c !== COMMA) throw new ScanError();
    i = skipSpace(text, i + 1);
  }
  if (skipSpace(text, i + 1) !== end) throw new ScanError();
  return open === OPEN_BRACE ? object : list;
}

/**
 * `JSON.parse` in slices: a large array or object is parsed member by member, yielding to the
 * event loop between members, so that a 30 MB body never holds it for long. Same result and
 * same errors as `JSON.parse` (malformed text is handed to it for the message).
 */
export async function parseJsonSliced(text: string, slicer: TimeSlicer): Promise<unknown> {
  const start = skipSpace(text, 0);
  let end = text.length;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  try {
    return await parseRange(text, start, end, slicer);
  } catch (err) {
    if (err instanceof ScanError) return JSON.parse(text);
    throw err;
  }
}

/** Arrays longer than this are written item by item. */
const SPLIT_LENGTH = 32;

/** Whether a value is a long array, or an object holding one: written member by member. */
export function isBulky(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > SPLIT_LENGTH;
  if (value === null || typeof value !== "object") return false;
  for (const v of Object.values(value)) if (Array.isArray(v) && v.length > SPLIT_LENGTH) return true;
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
