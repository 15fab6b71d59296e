import { isObject } from "../kit/model-call.js";

/**
 * InvokeModel bodies are bytes: the request's as the app gave them (a string or bytes), the
 * reply's and each stream chunk's as the SDK gives them (`Uint8Array`). These read them as JSON
 * without consuming anything (a body given as a stream is not read) and never throw.
 */

const decoder = new TextDecoder();

/** A body's text: a string as it is, bytes decoded as UTF-8; undefined for anything else (a stream, a Blob). */
export function bodyText(body: unknown): string | undefined {
  try {
    if (typeof body === "string") return body;
    if (body instanceof Uint8Array) return decoder.decode(body);
    if (body instanceof ArrayBuffer) return decoder.decode(new Uint8Array(body));
    if (ArrayBuffer.isView(body)) return decoder.decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  } catch {
    // Not text.
  }
  return undefined;
}

/** A body as a JSON object; `{}` when it is not one (or not readable without consuming it). */
export function bodyJson(body: unknown): Record<string, unknown> {
  const text = bodyText(body);
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
