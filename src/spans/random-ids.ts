// OTel ids from Math.random, as OpenTelemetry's own RandomIdGenerator makes them, but written as
// one flat string by String.fromCharCode instead of through a Buffer: less than half its cost per
// id, and no string pieces joined (a joined id is flattened again when it is hashed or written).

/** Char codes of the hex digits. */
const DIGIT: readonly number[] = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

const u32 = (): number => (Math.random() * 0x1_0000_0000) >>> 0;

/** The 8 char codes of `n`'s hex digits, appended to `out` from `at`. */
function digits(out: number[], at: number, n: number): void {
  for (let i = 7; i >= 0; i--) {
    out[at + i] = DIGIT[n & 15]!;
    n >>>= 4;
  }
}

const span16: number[] = new Array(16).fill(0);
const trace32: number[] = new Array(32).fill(0);

const ZERO_SPAN_ID = "0000000000000000";
const ZERO_TRACE_ID = "00000000000000000000000000000000";

/** A random 16-hex-digit span id, never the invalid all-zero one. */
export function newSpanId(): string {
  for (;;) {
    digits(span16, 0, u32());
    digits(span16, 8, u32());
    const id = String.fromCharCode.apply(null, span16);
    if (id !== ZERO_SPAN_ID) return id;
  }
}

/** A random 32-hex-digit trace id, never the invalid all-zero one. */
export function newTraceId(): string {
  for (;;) {
    for (let at = 0; at < 32; at += 8) digits(trace32, at, u32());
    const id = String.fromCharCode.apply(null, trace32);
    if (id !== ZERO_TRACE_ID) return id;
  }
}
