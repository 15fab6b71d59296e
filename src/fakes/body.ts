/** A loosely typed JSON object, as request bodies are read. */
export type Json = Record<string, unknown>;

/** `v` when it is a JSON object, else `{}`. */
export const obj = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** `v` when it is an array, else `[]`. */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** `v` when it is a string, else undefined. */
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** `v` when it is a finite number, else undefined. */
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * The text of a message's content in any of the APIs' shapes: a string, or a list of parts whose
 * `text` fields are joined (`text`, `input_text`, `output_text` parts; Gemini's `{text}` parts).
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return arr(content)
    .map((part) => (typeof part === "string" ? part : (str(obj(part).text) ?? "")))
    .join("");
}
