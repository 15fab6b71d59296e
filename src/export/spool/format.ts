/**
 * The spool's disk format: a segment file is a run of records, each framed so that a torn write
 * (a process killed mid-append) and a damaged byte are both detected:
 *
 * ```
 * offset  size  field
 * 0       4     magic "ETS1" (0x45 0x54 0x53 0x31)
 * 4       4     payload length L, unsigned little-endian
 * 8       4     CRC-32 (IEEE, as zlib) of the payload, unsigned little-endian
 * 12      L     payload: u16 LE header length H, H bytes of header JSON, then the body
 * ```
 *
 * The header is `{"k": idempotency key, "n": traces, "t": epoch millis spooled}`; the body is
 * the `POST /v1/traces` request body exactly as it was (or would have been) sent.
 */

/** The four bytes that open every record. */
export const RECORD_MAGIC: Uint8Array = new Uint8Array([0x45, 0x54, 0x53, 0x31]);

/** Bytes of the frame before the payload: magic, length, CRC. */
export const FRAME_BYTES = 12;

/** Longest payload a reader believes (a larger length is a damaged frame). */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

/** What a record says about its batch. */
export interface RecordHeader {
  /** The `Idempotency-Key` the batch was (or would have been) first sent with. */
  k: string;
  /** Traces in the batch. */
  n: number;
  /** When it was spooled, epoch milliseconds. */
  t: number;
}

/** A CRC-32 of bytes, continued from `value` when given (zlib's `crc32` where there is one). */
export type Crc32 = (data: Uint8Array, value?: number) => number;

const TABLE = /* @__PURE__ */ (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 in JavaScript, for runtimes whose zlib has none (Node before 20.15). */
export const crc32Js: Crc32 = (data, value = 0) => {
  let c = (value ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The frame and header of a record, to be written followed by `body` (two buffers, one
 * `writev`: the body is never copied). The CRC covers header and body.
 */
export function frameOf(header: RecordHeader, body: Uint8Array, crc: Crc32): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  const head = new Uint8Array(FRAME_BYTES + 2 + json.length);
  const view = new DataView(head.buffer);
  head.set(RECORD_MAGIC, 0);
  view.setUint32(4, 2 + json.length + body.length, true);
  view.setUint16(FRAME_BYTES, json.length, true);
  head.set(json, FRAME_BYTES + 2);
  // CRC of the payload: the header part, then the body, chained.
  view.setUint32(8, crc(body, crc(head.subarray(FRAME_BYTES))) >>> 0, true);
  return head;
}

/** A whole record in one buffer (tests, tools). */
export function encodeRecord(header: RecordHeader, body: Uint8Array, crc: Crc32 = crc32Js): Uint8Array {
  const head = frameOf(header, body, crc);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/** What reading at an offset found. */
export type ReadResult =
  | { kind: "record"; header: RecordHeader; body: Uint8Array; next: number }
  /** Damaged bytes from the offset to `next`, where the next record (or the end) begins. */
  | { kind: "corrupt"; next: number }
  /** A record cut short by the end of the file: a torn write, or one still being written. */
  | { kind: "truncated" }
  | { kind: "end" };

/** Reads the record at `pos` of a segment's bytes. */
export function readRecord(buf: Uint8Array, pos: number, crc: Crc32 = crc32Js): ReadResult {
  if (pos >= buf.length) return { kind: "end" };
  if (buf.length - pos < FRAME_BYTES) return isMagicPrefix(buf, pos) ? { kind: "truncated" } : { kind: "corrupt", next: buf.length };
  if (!hasMagic(buf, pos)) return { kind: "corrupt", next: nextMagic(buf, pos + 1) };
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const length = view.getUint32(pos + 4, true);
  const end = pos + FRAME_BYTES + length;
  if (length < 2 || length > MAX_PAYLOAD_BYTES) return { kind: "corrupt", next: nextMagic(buf, pos + 1) };
  if (end > buf.length) {
    // Cut short, or a damaged length: a record further on says which.
    const next = nextMagic(buf, pos + 1);
    return next < buf.length ? { kind: "corrupt", next } : { kind: "truncated" };
  }
  const payload = buf.subarray(pos + FRAME_BYTES, end);
  if (crc(payload) >>> 0 !== view.getUint32(pos + 8, true)) return { kind: "corrupt", next: nextMagic(buf, pos + 1) };
  const headerBytes = view.getUint16(pos + FRAME_BYTES, true);
  const header = parseHeader(payload.subarray(2, 2 + headerBytes));
  if (header === undefined || 2 + headerBytes > payload.length) return { kind: "corrupt", next: end };
  return { kind: "record", header, body: payload.subarray(2 + headerBytes), next: end };
}

function parseHeader(bytes: Uint8Array): RecordHeader | undefined {
  try {
    const h = JSON.parse(decoder.decode(bytes)) as Partial<RecordHeader>;
    if (typeof h.k === "string" && Number.isInteger(h.n) && typeof h.t === "number") return { k: h.k, n: h.n!, t: h.t };
  } catch {
    // Not JSON: damaged.
  }
  return undefined;
}

function hasMagic(buf: Uint8Array, pos: number): boolean {
  return buf[pos] === 0x45 && buf[pos + 1] === 0x54 && buf[pos + 2] === 0x53 && buf[pos + 3] === 0x31;
}

function isMagicPrefix(buf: Uint8Array, pos: number): boolean {
  for (let i = 0; i < 4 && pos + i < buf.length; i++) if (buf[pos + i] !== RECORD_MAGIC[i]) return false;
  return true;
}

/** The offset of the next record's magic at or after `from`, else the end of the buffer. */
function nextMagic(buf: Uint8Array, from: number): number {
  for (let i = from; i + 4 <= buf.length; i++) {
    if (buf[i] === 0x45 && hasMagic(buf, i)) return i;
  }
  return buf.length;
}
