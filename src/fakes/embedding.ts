/** FNV-1a of a string: the seed of its embedding. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A deterministic unit-length embedding of `text` with `dimensions` values: the same text always
 * gives the same vector, different texts nearly orthogonal ones. The values are float32 numbers, so
 * a vector sent as JSON floats and the same vector sent as base64 float32 bytes decode equal.
 */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  // mulberry32, seeded by the text.
  let state = hash(text);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const raw = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.sqrt(raw.reduce((s, v) => s + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

/** `values` as little-endian float32 bytes in base64 (OpenAI's `encoding_format: "base64"`). */
export function float32Base64(values: number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) bytes.writeFloatLE(values[i]!, i * 4);
  return bytes.toString("base64");
}
