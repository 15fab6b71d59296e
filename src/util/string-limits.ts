/**
 * Caps on the strings that leave the process, in characters (UTF-16 code units). A longer
 * string is cut at the cap and gets the marker `...[truncated N chars]` (so it may exceed the
 * cap by the marker's length). Long text fields (inputs, outputs, test-case texts, tool
 * descriptions) are bounded by `SerializeLimits` instead.
 */

/** Span and trace names. */
export const MAX_NAME_CHARS = 1024;

/** Error messages: a span's `error` (the thrown error's message) and `describeError`. */
export const MAX_ERROR_CHARS = 8 * 1024;

/** One tag of a trace. */
export const MAX_TAG_CHARS = 256;

/** Distinct tags kept per trace; further tags are dropped with a warning. */
export const MAX_TAGS_PER_TRACE = 100;

/** One metadata key (of a span, a trace, or a tool call's `inputParameters`). */
export const MAX_METADATA_KEY_CHARS = 256;

/** `threadId` and `userId`. */
export const MAX_ID_CHARS = 512;

/**
 * Short string fields: `model`, `provider`, `embedder`, `promptAlias`, `promptVersion`,
 * `promptLabel`, `promptCommitHash`, `metricCollection`, `environment`, the `integration` of
 * a span, tool-call names and each item of `availableTools` / `agentHandoffs`.
 */
export const MAX_LABEL_CHARS = 1024;

/**
 * Longest attribute of a foreign (non-evaltrace) OTel span that is parsed as JSON; a longer
 * one is kept as truncated text instead of being parsed.
 */
export const MAX_FOREIGN_JSON_CHARS = 1024 * 1024;

const NUL = "\u0000";
const MARKER_PREFIX = "...[truncated ";

/**
 * `s` cut to at most `cap` characters plus the marker `...[truncated N chars]`, without
 * splitting a surrogate pair, and with NUL characters removed (the service's store rejects
 * them). Only the kept part is copied: a 50 MB string costs `cap` characters. Never throws.
 */
export function truncateString(s: string, cap: number): string {
  let out = s;
  if (s.length > cap) {
    let end = Math.max(0, Math.floor(cap));
    const last = end > 0 ? s.charCodeAt(end - 1) : 0;
    if (last >= 0xd800 && last <= 0xdbff) end--;
    out = `${s.slice(0, end)}${MARKER_PREFIX}${s.length - end} chars]`;
  }
  // On the bounded string only: this also flattens it, so it no longer refers to `s`.
  return out.includes(NUL) ? out.split(NUL).join("") : out;
}
