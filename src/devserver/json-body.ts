import type { IncomingMessage } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { HttpError } from "./http-error.js";
import { parseJsonSliced } from "./sliced-json.js";
import { TimeSlicer } from "./time-slicer.js";
import { CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from "./json-chars.js";

/**
 * Deepest nesting of arrays and objects accepted in a request body. The emulator walks bodies
 * recursively (checks, digests, copies); a cap far above any real payload keeps a hostile body
 * from overflowing the stack.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * The deepest nesting of `[`/`{` in JSON text, strings skipped; stops counting once past `limit`.
 * Linear, no recursion; yields to the event loop through `slicer` on long texts. Strings (most of
 * a body) are skipped with native searches for their closing quote and for backslashes.
 */
export async function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY, slicer = new TimeSlicer()): Promise<number> {
  let depth = 0;
  let max = 0;
  /** The first backslash at or after where it was last looked for; -1 when there is none left. */
  let backslash = -2;
  let i = 0;
  while (i < text.length) {
    if (slicer.due()) await slicer.yield();
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The string ends at the first quote not escaped by a backslash (which escapes one character).
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) return max;
        if (backslash !== -1 && backslash < from) backslash = text.indexOf("\\", from);
        if (backslash === -1 || backslash > quote) {
          i = quote + 1;
          break;
        }
        from = backslash + 2;
      }
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
    i++;
  }
  return max;
}

/**
 * The raw body, or 413 once it passes `limit` bytes. Decoded chunk by chunk as it arrives (a
 * character split across chunks is kept for the next), so a 30 MB body is never decoded at once.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder("utf8");
    const pieces: string[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpError(413, `request body is larger than ${limit} bytes`));
        req.pause();
        return;
      }
      pieces.push(decoder.write(chunk));
    });
    req.on("end", () => resolve(pieces.join("") + decoder.end()));
    req.on("error", reject);
  });
}

/**
 * The JSON body of a write; an empty body reads as `{}`. 415 for another content type, 400 for
 * malformed JSON or nesting deeper than {@link MAX_JSON_DEPTH}. Parsed in slices of event-loop time.
 */
export async function readJson(req: IncomingMessage, limit: number, slicer = new TimeSlicer()): Promise<unknown> {
  const raw = await readBody(req, limit);
  if (raw.trim().length === 0) return {};
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, `Content-Type must be application/json; got "${type || "none"}"`);
  if ((await jsonDepth(raw, MAX_JSON_DEPTH, slicer)) > MAX_JSON_DEPTH) {
    throw new HttpError(400, `malformed JSON body: arrays and objects are nested more than ${MAX_JSON_DEPTH} deep`);
  }
  try {
    return await parseJsonSliced(raw, slicer);
  } catch (err) {
    throw new HttpError(400, `malformed JSON body: ${(err as Error).message}`);
  }
}

/** A percent-decoded path segment; 400 for malformed encoding (`%`, `%zz`, a lone surrogate). */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `malformed percent-encoding in the path segment "${segment.slice(0, 200)}"`);
  }
}
