import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * The AWS event stream encoding (`application/vnd.amazon.eventstream`), as the AWS SDKs decode it
 * (`@smithy/eventstream-codec`): each message is a prelude (total length, headers length, both
 * big-endian uint32, and the prelude's CRC32), the headers, the payload, and the CRC32 of all
 * that came before. A header is its name's length (1 byte), its name, its value type (7: string)
 * and the value (a uint16 length, then UTF-8 bytes).
 */

/** One event stream message: string headers (`:event-type`, `:message-type`...) and a payload. */
export interface EventStreamMessage {
  headers: Record<string, string>;
  payload: Uint8Array;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3), as the event stream's prelude and message checksums use it. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const STRING_TYPE = 7;

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, "utf8");
    const v = Buffer.from(value, "utf8");
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(STRING_TYPE, 1 + n.length);
    head.writeUInt16BE(v.length, 2 + n.length);
    parts.push(head, v);
  }
  return Buffer.concat(parts);
}

/** One message as bytes: prelude, prelude CRC, headers, payload, message CRC. */
export function encodeMessage(message: EventStreamMessage): Buffer {
  const headers = encodeHeaders(message.headers);
  const total = 12 + headers.length + message.payload.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headers.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  headers.copy(out, 12);
  Buffer.from(message.payload).copy(out, 12 + headers.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** An `event` message of type `type` whose payload is `value` as JSON. */
export function jsonEventMessage(type: string, value: unknown): EventStreamMessage {
  return { headers: { ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, payload: Buffer.from(JSON.stringify(value), "utf8") };
}

/** An `exception` message (a modeled error of the stream, e.g. `modelStreamErrorException`) with a JSON body. */
export function exceptionMessage(type: string, value: unknown): EventStreamMessage {
  return { headers: { ":exception-type": type, ":content-type": "application/json", ":message-type": "exception" }, payload: Buffer.from(JSON.stringify(value), "utf8") };
}

/** Decodes a whole body of messages (for tests of the fake); throws on a bad length or checksum. */
export function decodeMessages(bytes: Uint8Array): EventStreamMessage[] {
  const buf = Buffer.from(bytes);
  const out: EventStreamMessage[] = [];
  let at = 0;
  while (at < buf.length) {
    const total = buf.readUInt32BE(at);
    const headersLength = buf.readUInt32BE(at + 4);
    if (crc32(buf.subarray(at, at + 8)) !== buf.readUInt32BE(at + 8)) throw new Error("event stream: bad prelude checksum");
    if (crc32(buf.subarray(at, at + total - 4)) !== buf.readUInt32BE(at + total - 4)) throw new Error("event stream: bad message checksum");
    const headers: Record<string, string> = {};
    let h = at + 12;
    const end = h + headersLength;
    while (h < end) {
      const nameLength = buf.readUInt8(h);
      const name = buf.toString("utf8", h + 1, h + 1 + nameLength);
      const type = buf.readUInt8(h + 1 + nameLength);
      if (type !== STRING_TYPE) throw new Error(`event stream: header ${name} is not a string`);
      const valueLength = buf.readUInt16BE(h + 2 + nameLength);
      headers[name] = buf.toString("utf8", h + 4 + nameLength, h + 4 + nameLength + valueLength);
      h += 4 + nameLength + valueLength;
    }
    out.push({ headers, payload: buf.subarray(end, at + total - 4) });
    at += total;
  }
  return out;
}

/** How a fake streams events: pacing, and a failure part-way. */
export interface EventStreamOptions {
  /** Pause before every message after the first, in milliseconds. */
  delayMs?: number;
  /** After this many messages, send `failure` instead of the rest and end the stream. */
  failAfter?: number;
  /** The stream's exception message, sent at `failAfter`. */
  failure?: EventStreamMessage;
  /** Extra response headers (request ids). */
  headers?: Record<string, string>;
}

/** Writes `messages` as an `application/vnd.amazon.eventstream` response; stops quietly when the client goes away. */
export async function writeEventStream(res: ServerResponse, messages: EventStreamMessage[], options: EventStreamOptions = {}): Promise<void> {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", ...options.headers });
  // An HTTP/2 response (node's compatibility API) says it is gone through its stream.
  const gone = () => res.destroyed || res.writableEnded || (res as { stream?: { destroyed?: boolean } }).stream?.destroyed === true;
  const failAt = options.failAfter !== undefined && options.failAfter >= 0 ? options.failAfter : Number.POSITIVE_INFINITY;
  const out = failAt < messages.length ? [...messages.slice(0, failAt), ...(options.failure ? [options.failure] : [])] : messages;
  for (let i = 0; i < out.length; i++) {
    if (i > 0 && options.delayMs !== undefined && options.delayMs > 0) await sleep(options.delayMs);
    if (gone()) return;
    res.write(encodeMessage(out[i]!));
  }
  if (!gone()) res.end();
}
