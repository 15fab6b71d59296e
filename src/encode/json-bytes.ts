import type { HrTime } from "@opentelemetry/api";
import { hrTimeToIso } from "../spans/time.js";
import { spanUuid, traceUuid } from "../spans/ids.js";

/**
 * A growable byte buffer that JSON is written into as UTF-8, the way `JSON.stringify` writes it.
 * Uuids and times go in as bytes straight from the hex ids and the `[seconds, nanos]` times: no
 * string is made for them (on the export path those strings, and `JSON.stringify` copying them,
 * cost more than the rest of a span's JSON). Anything unusual goes through the string formatters
 * and `JSON.stringify`, so the text is always theirs.
 */
export class JsonBytes {
  private buf: Uint8Array;
  /** Bytes written so far. */
  pos = 0;
  /**
   * The bytes before a time's microseconds, for the last two keys written with: the key, the
   * quote, the date and time to the second and the dot (the same for all of a second's times).
   */
  private readonly timeHeads: [KeyedHead, KeyedHead] = [newHead(), newHead()];
  /**
   * The bytes before a span uuid's last 16 digits, for the last two keys written with: the key,
   * the quote and the trace id's first 16 digits (the same for all of a trace's spans).
   */
  private readonly uuidHeads: [KeyedHead, KeyedHead] = [newHead(), newHead()];

  constructor(private readonly initialBytes = 64 * 1024) {
    this.buf = alloc(initialBytes);
  }

  /** Starts over (the buffer is kept, unless a large body grew it past {@link KEPT_BYTES}). */
  reset(): void {
    this.pos = 0;
    if (this.buf.length > KEPT_BYTES) this.buf = alloc(this.initialBytes);
  }

  /** Bytes the buffer holds before it grows. */
  get capacity(): number {
    return this.buf.length;
  }

  /** A copy of what was written. */
  copy(): Uint8Array {
    const out = alloc(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    return out;
  }

  /** What was written, in place (valid until the next write). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** What was written in `[from, to)`, as text. */
  text(from = 0, to = this.pos): string {
    return decoder.decode(this.buf.subarray(from, to));
  }

  /** Bytes `[from, to)` of another writer, as they are. */
  copyFrom(other: JsonBytes, from: number, to: number): void {
    const n = to - from;
    if (this.pos + n > this.buf.length) this.grow(n);
    this.buf.set(other.buf.subarray(from, to), this.pos);
    this.pos += n;
  }

  /** Whether `needle`'s UTF-8 occurs in `[from, pos)`. */
  includes(needle: string, from = 0): boolean {
    const buf = this.buf;
    if (isBuffer(buf)) return buf.subarray(0, this.pos).indexOf(needle, from, "utf8") >= 0;
    return this.text(from).includes(needle);
  }

  /** One byte (ASCII). */
  byte(c: number): void {
    if (this.pos >= this.buf.length) this.grow(1);
    this.buf[this.pos++] = c;
  }

  /** Bytes as they are (ASCII made with {@link ascii}). */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    let p = this.pos;
    if (n > RAW_LOOP_BYTES) {
      // One copy: at about 15 ns whatever the length, cheaper than a loop past a dozen bytes.
      buf.set(bytes, p);
      this.pos = p + n;
      return;
    }
    // Byte by byte: for the few bytes of a key, cheaper than a call of `set`.
    for (let i = 0; i < n; i++) buf[p++] = bytes[i]!;
    this.pos = p;
  }

  /** A string's JSON. */
  string(s: string): void {
    const n = s.length;
    if (n <= SHORT_CHARS) {
      // Most strings are short ASCII needing no escape: written char by char, quoted.
      if (this.pos + n + 2 > this.buf.length) this.grow(n + 2);
      const buf = this.buf;
      let p = this.pos;
      buf[p++] = 0x22;
      // A char that is not plain ASCII sets a bit of `bad`, looked at once the string is copied.
      let bad = 0;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        buf[p++] = c;
        bad |= (c >> 7) | ESCAPED_ASCII[c & 0x7f]!;
      }
      if (bad !== 0) {
        // Nothing of the copy counts: JSON.stringify's text goes where it began.
        this.json(JSON.stringify(s));
        return;
      }
      buf[p++] = 0x22;
      this.pos = p;
      return;
    }
    this.json(ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`);
  }

  /** `,"key":` (made with {@link ascii}) and the value's JSON, unless JSON leaves the value out. */
  field(key: Uint8Array, value: unknown): void {
    if (typeof value === "string") {
      this.raw(key);
      this.string(value);
      return;
    }
    if (value === undefined) return;
    const mark = this.pos;
    this.raw(key);
    if (!this.value(value)) this.pos = mark;
  }

  /** `,"key":` and the value's JSON for a key known only when written, unless JSON leaves the value out. */
  entry(key: string, value: unknown): void {
    if (value === undefined) return;
    const mark = this.pos;
    this.byte(0x2c);
    this.string(key);
    this.byte(0x3a);
    if (!this.value(value)) this.pos = mark;
  }

  /** Any value's JSON; false (nothing written) where JSON leaves the value out (undefined, functions). */
  value(v: unknown): boolean {
    if (typeof v === "string") {
      this.string(v);
      return true;
    }
    // Plain data (what capture makes) is written here; anything else as JSON.stringify writes it.
    const mark = this.pos;
    if (this.plain(v, 0)) return true;
    this.pos = mark;
    const json = JSON.stringify(v) as string | undefined;
    if (json === undefined) return false;
    this.json(json);
    return true;
  }

  /**
   * Writes strings, numbers, booleans, null, and arrays and plain objects of them, as
   * `JSON.stringify` does; false (part written) on anything else: an object of another kind or
   * with a `toJSON`, a bigint, nesting deeper than {@link PLAIN_DEPTH} (a cycle). What it read
   * before giving up (a getter) is read again by `JSON.stringify`.
   */
  private plain(v: unknown, depth: number): boolean {
    switch (typeof v) {
      case "string":
        this.string(v);
        return true;
      case "number":
        this.number(v);
        return true;
      case "boolean":
        this.raw(v ? TRUE : FALSE);
        return true;
      case "object": {
        if (v === null) {
          this.raw(NULL);
          return true;
        }
        if (depth >= PLAIN_DEPTH || (v as { toJSON?: unknown }).toJSON !== undefined) return false;
        // An array is what JSON.stringify takes for one, whatever its prototype; an object only a plain one.
        if (Array.isArray(v)) return this.plainArray(v, depth + 1);
        const proto = Object.getPrototypeOf(v) as unknown;
        return (proto === Object.prototype || proto === null) && this.plainObject(v as Record<string, unknown>, depth + 1);
      }
      default:
        return false;
    }
  }

  private plainArray(a: unknown[], depth: number): boolean {
    this.byte(0x5b);
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.byte(0x2c);
      const item = a[i];
      if (item === undefined || typeof item === "symbol" || isBareFunction(item)) this.raw(NULL);
      else if (!this.plain(item, depth)) return false;
    }
    this.byte(0x5d);
    return true;
  }

  private plainObject(o: Record<string, unknown>, depth: number): boolean {
    this.byte(0x7b);
    let first = true;
    for (const key in o) {
      if (!Object.hasOwn(o, key)) continue;
      const item = o[key];
      if (item === undefined || typeof item === "symbol" || isBareFunction(item)) continue;
      if (!first) this.byte(0x2c);
      first = false;
      this.string(key);
      this.byte(0x3a);
      if (!this.plain(item, depth)) return false;
    }
    this.byte(0x7d);
    return true;
  }

  /** A number's JSON: its shortest text, `null` when not finite. */
  private number(n: number): void {
    if (Number.isInteger(n) && n < 1e15 && n > -1e15) {
      if (this.pos + 17 > this.buf.length) this.grow(17);
      const buf = this.buf;
      let rest = n;
      if (rest < 0) {
        buf[this.pos++] = 0x2d;
        rest = -rest;
      }
      // Digits from the right, then the run reversed in place (-0 is 0 here, as JSON writes it).
      const from = this.pos;
      let p = from;
      do {
        buf[p++] = 0x30 + (rest % 10);
        rest = Math.floor(rest / 10);
      } while (rest > 0);
      for (let i = from, j = p - 1; i < j; i++, j--) {
        const c = buf[i]!;
        buf[i] = buf[j]!;
        buf[j] = c;
      }
      this.pos = p;
      return;
    }
    this.json(Number.isFinite(n) ? String(n) : "null");
  }

  /** JSON text as it is (UTF-8 encoded). */
  json(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; a large text is measured instead.
    const most = text.length <= MEASURE_ABOVE_CHARS ? text.length * 3 : utf8Length(text);
    if (this.pos + most > this.buf.length) this.grow(most);
    this.pos += writeUtf8(this.buf, text, this.pos);
  }

  /** The service uuid of a trace (`spanId` undefined) or of a span, quoted. */
  uuid(traceId: string, spanId?: string): void {
    this.keyUuid(NO_KEY, traceId, spanId);
  }

  /** `key` (made with {@link ascii}) and the service uuid of a trace (`spanId` undefined) or of a span, quoted. */
  keyUuid(key: Uint8Array, traceId: string, spanId?: string): void {
    // A span id equal to the trace id's last 16 digits (made another uuid by the formatter) is
    // looked for only when their first digits agree: one char compared for most spans.
    const plain = traceId.length === 32 && (spanId === undefined || (spanId.length === 16 && (spanId.charCodeAt(0) !== traceId.charCodeAt(16) || !traceId.endsWith(spanId))));
    if (plain && this.uuidBytes(key, traceId, spanId)) return;
    this.raw(key);
    this.string(spanId === undefined ? traceUuid(traceId) : spanUuid(traceId, spanId));
  }

  /** An ISO 8601 time with microseconds, quoted, as {@link hrTimeToIso} writes it. */
  time(time: HrTime): void {
    this.keyTime(NO_KEY, time);
  }

  /** `key` (made with {@link ascii}) and a time, as {@link time} writes it. */
  keyTime(key: Uint8Array, time: HrTime): void {
    // Indexed, not destructured: no iteration set up per time.
    const seconds = time[0];
    const micros = Math.floor(time[1] / 1000);
    if (!(micros >= 0 && micros < 1_000_000)) {
      this.raw(key);
      this.string(hrTimeToIso(time));
      return;
    }
    const head = headFor(this.timeHeads, key);
    if (head.of !== seconds) {
      // The quote, the date and time to the second, and the dot: the same for a second's times.
      head.bytes = concat(key, ascii(`"${hrTimeToIso([seconds, 0]).slice(0, -7)}`));
      head.of = seconds;
    }
    const bytes = head.bytes;
    const n = bytes.length;
    if (this.pos + n + 8 > this.buf.length) this.grow(n + 8);
    const buf = this.buf;
    let p = this.pos;
    buf.set(bytes, p);
    p += n;
    // The six digits of the microseconds, three at a time from a table (integers only: no
    // floating-point remainder per digit).
    const high = ((micros | 0) / 1000) | 0;
    let d = high * 3;
    buf[p] = DIGITS[d]!;
    buf[p + 1] = DIGITS[d + 1]!;
    buf[p + 2] = DIGITS[d + 2]!;
    d = ((micros | 0) - high * 1000) * 3;
    buf[p + 3] = DIGITS[d]!;
    buf[p + 4] = DIGITS[d + 1]!;
    buf[p + 5] = DIGITS[d + 2]!;
    buf[p + 6] = 0x5a; // Z
    buf[p + 7] = 0x22;
    this.pos = p + 8;
  }

  /** `key` and 8-4-4-4-12 from the hex digits; false (nothing written) if a digit would need escaping. */
  private uuidBytes(key: Uint8Array, traceId: string, spanId: string | undefined): boolean {
    const k = key.length;
    if (this.pos + k + 38 > this.buf.length) this.grow(k + 38);
    const buf = this.buf;
    const head = headFor(this.uuidHeads, key);
    let start = this.pos;
    // Any char not plain printable ASCII (one that would need an escape or more bytes) sets a
    // bit of `bad`: checked once, at the end, not per char.
    let bad = 0;
    if (spanId !== undefined && head.of === traceId) {
      // A span's uuid begins with its trace's first 16 digits, as the others of its trace do:
      // the key and those copied as written for the trace seen last.
      buf.set(head.bytes, start);
      start += k;
    } else {
      for (let i = 0; i < k; i++) buf[start + i] = key[i]!;
      start += k;
      buf[start] = 0x22;
      bad = plainInto(buf, start + 1, traceId, 0, 8) | plainInto(buf, start + 10, traceId, 8, 12) | plainInto(buf, start + 15, traceId, 12, 16);
      buf[start + 9] = buf[start + 14] = buf[start + 19] = 0x2d; // -
      if (bad === 0) {
        if (head.bytes.length !== k + 20) head.bytes = new Uint8Array(k + 20);
        const bytes = head.bytes;
        for (let i = 0, from = start - k; i < k + 20; i++) bytes[i] = buf[from + i]!;
        head.of = traceId;
      }
    }
    // The last 16 digits: the trace id's for a trace, the span id for a span.
    const last = spanId ?? traceId;
    const from = spanId === undefined ? 16 : 0;
    bad |= plainInto(buf, start + 20, last, from, from + 4) | plainInto(buf, start + 25, last, from + 4, from + 16);
    if (bad !== 0) return false;
    buf[start + 24] = 0x2d;
    buf[start + 37] = 0x22;
    this.pos = start + 38;
    return true;
  }

  private grow(needed: number): void {
    const next = alloc(Math.max(this.buf.length * 2, this.pos + needed));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
}

/** A function JSON leaves out (one with a `toJSON` is written as that returns: left to JSON.stringify). */
function isBareFunction(v: unknown): boolean {
  return typeof v === "function" && (v as { toJSON?: unknown }).toJSON === undefined;
}

/**
 * Copies `s[from, to)` to `buf` at `at`, each char one byte; nonzero if a char is not plain
 * printable ASCII (it would need an escape or more bytes: then what was copied is not used).
 */
function plainInto(buf: Uint8Array, at: number, s: string, from: number, to: number): number {
  let bad = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    buf[at++] = c;
    bad |= (c >> 7) | NOT_PLAIN[c & 0x7f]!;
  }
  return bad;
}

/** What was made for one key (the head of a time or of a uuid), and what it was made of (the second, the trace id). */
interface KeyedHead {
  key: Uint8Array | undefined;
  of: unknown;
  bytes: Uint8Array;
}

function newHead(): KeyedHead {
  return { key: undefined, of: undefined, bytes: new Uint8Array(0) };
}

/** The head of `key` among the two kept: the other one (the older) is made over for it when neither is. */
function headFor(heads: [KeyedHead, KeyedHead], key: Uint8Array): KeyedHead {
  const [a, b] = heads;
  if (a.key === key) return a;
  if (b.key === key) return b;
  // Neither: the older (second) goes, the newer moves second.
  heads[0] = b;
  heads[1] = a;
  b.key = key;
  b.of = undefined;
  return b;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** No key (a value written alone). */
const NO_KEY = new Uint8Array(0);

/** ASCII text as bytes (for the fixed pieces of JSON written with {@link JsonBytes.raw}). */
export function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Nesting written by {@link JsonBytes.plain} before it leaves the value to `JSON.stringify`. */
const PLAIN_DEPTH = 64;
const TRUE = ascii("true");
const FALSE = ascii("false");
const NULL = ascii("null");
/** 1 for the ASCII chars JSON escapes (controls, quote, backslash) and DEL (not written as they are in a uuid). */
const NOT_PLAIN = (() => {
  const out = new Uint8Array(128);
  for (let c = 0; c < 0x20; c++) out[c] = 1;
  out[0x22] = out[0x5c] = out[0x7f] = 1;
  return out;
})();
/** 1 for the ASCII chars JSON escapes in a string: controls, quote, backslash. */
const ESCAPED_ASCII = (() => {
  const out = new Uint8Array(128);
  for (let c = 0; c < 0x20; c++) out[c] = 1;
  out[0x22] = out[0x5c] = 1;
  return out;
})();
/** "000" to "999", three bytes each: the digits of times. */
const DIGITS = (() => {
  const out = new Uint8Array(3000);
  for (let i = 0; i < 1000; i++) {
    out[i * 3] = 0x30 + Math.floor(i / 100);
    out[i * 3 + 1] = 0x30 + (Math.floor(i / 10) % 10);
    out[i * 3 + 2] = 0x30 + (i % 10);
  }
  return out;
})();
/** Constant runs up to this long are copied byte by byte, longer ones with one `set`. */
const RAW_LOOP_BYTES = 12;
/** Strings up to this long are written char by char. */
const SHORT_CHARS = 256;
/** Above this, a text's UTF-8 length is measured before it is written (not assumed 3x). */
const MEASURE_ABOVE_CHARS = 64 * 1024;
/** A buffer grown past this by a large body is let go afterwards. */
const KEPT_BYTES = 1024 * 1024;

/** Characters `JSON.stringify` escapes: quote, backslash, controls, surrogates (lone ones). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

function alloc(bytes: number): Uint8Array {
  return NodeBuffer ? NodeBuffer.allocUnsafeSlow(bytes) : new Uint8Array(bytes);
}

/** Whether the buffer is a Node `Buffer` (it is, wherever there is one: {@link alloc}). */
function isBuffer(buf: Uint8Array): buf is Buffer {
  return NodeBuffer !== undefined && buf instanceof NodeBuffer;
}

/** The bytes of a text in UTF-8. */
export function utf8Length(text: string): number {
  return NodeBuffer ? NodeBuffer.byteLength(text, "utf8") : encoder.encode(text).length;
}

function writeUtf8(buf: Uint8Array, text: string, at: number): number {
  if (isBuffer(buf)) return buf.write(text, at, "utf8");
  return encoder.encodeInto(text, buf.subarray(at)).written;
}
