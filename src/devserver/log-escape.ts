/**
 * Control characters (C0 but tab, DEL, C1), line and paragraph separators and the bidirectional
 * overrides and isolates: what would move the cursor, retitle the terminal, forge a log line or
 * reorder what is shown.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A log line with every unsafe character of request data written as a `\uXXXX` escape: a
 * request's field names, ids and paths reach the `evaltrace dev` terminal, and raw escape
 * sequences there would act on it.
 */
export function escapeControls(line: string): string {
  return line.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
