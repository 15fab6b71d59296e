import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32Js, encodeRecord, FRAME_BYTES, readRecord } from "../../../src/export/spool/format.js";

const body = (text: string) => new TextEncoder().encode(text);
const rec = (k: string, n: number, text: string) => encodeRecord({ k, n, t: 1_700_000_000_000 }, body(text));
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
/** Every result of reading a segment from the start, as kinds and keys. */
function readAll(buf: Uint8Array): string[] {
  const seen: string[] = [];
  for (let pos = 0; ; ) {
    const r = readRecord(buf, pos);
    if (r.kind === "end") return seen;
    if (r.kind === "truncated") return [...seen, "truncated"];
    seen.push(r.kind === "record" ? `${r.header.k}:${r.header.n}:${new TextDecoder().decode(r.body)}` : "corrupt");
    pos = r.next;
  }
}

describe("the spool's record format", () => {
  it("the JavaScript CRC-32 equals zlib's, whole and continued", () => {
    const data = body('{"traces":[{"uuid":"x"}]}'.repeat(50));
    expect(crc32Js(data)).toBe(crc32(data));
    expect(crc32Js(data.subarray(10), crc32Js(data.subarray(0, 10)))).toBe(crc32(data));
  });

  it("records read back in order with their key, trace count and body, byte for byte", () => {
    const buf = join(rec("key-1", 2, '{"traces":[1,2]}'), rec("key-2", 1, '{"traces":[3]}'));
    expect(readAll(buf)).toEqual(['key-1:2:{"traces":[1,2]}', 'key-2:1:{"traces":[3]}']);
  });

  it("a flipped byte in a body: that record is reported damaged, the next one still reads", () => {
    const first = rec("a", 1, '{"traces":["aaaa"]}');
    first[first.length - 3] = first[first.length - 3]! ^ 0xff;
    expect(readAll(join(first, rec("b", 1, '{"traces":["b"]}')))).toEqual(["corrupt", 'b:1:{"traces":["b"]}']);
  });

  it("a damaged length or magic: skipped to the next record's magic", () => {
    const first = rec("a", 1, '{"traces":["aaaa"]}');
    new DataView(first.buffer).setUint32(4, 9_999_999, true);
    expect(readAll(join(first, rec("b", 1, "{}")))).toEqual(["corrupt", "b:1:{}"]);
    const garbage = body("not a record at all");
    expect(readAll(join(garbage, rec("c", 3, "{}")))).toEqual(["corrupt", "c:3:{}"]);
  });

  it("a record cut short at the end (a torn write) reads as truncated, after the whole ones", () => {
    const whole = rec("a", 1, "{}");
    const torn = rec("b", 1, '{"traces":["bbbbbbbb"]}');
    for (const cut of [3, FRAME_BYTES - 1, FRAME_BYTES + 4, torn.length - 1]) {
      expect(readAll(join(whole, torn.subarray(0, cut)))).toEqual(["a:1:{}", "truncated"]);
    }
  });
});
