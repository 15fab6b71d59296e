import { MAX_ERROR_CHARS, truncateString } from "./string-limits.js";

/**
 * A short description of anything thrown: an Error's message (else its name), anything else as
 * a string, always a string of at most {@link MAX_ERROR_CHARS} characters plus a truncation
 * marker. Safe to call on hostile values (throwing getters, revoked proxies).
 */
export function describeError(err: unknown): string {
  let text: string;
  try {
    if (err instanceof Error) {
      const message: unknown = err.message;
      text = typeof message === "string" && message ? message : String(message || err.name || "Error");
    } else {
      text = String(err);
    }
  } catch {
    return "unknown error";
  }
  return truncateString(text, MAX_ERROR_CHARS);
}
