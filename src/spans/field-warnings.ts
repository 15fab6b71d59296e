import { processWide } from "../process-wide.js";
import type { Logger } from "../logger.js";

/** Distinct fields warned about per logger; beyond it, one last warning says the rest is silent. */
export const MAX_WARNED_FIELDS = 200;

const warned = processWide("fieldWarnings", () => new WeakMap<Logger, Set<string>>());

/**
 * Warns about a field value that was dropped or repaired, once per logger and `field` (a field
 * path such as `trace.tags` or `span.llmTestCase.retrievalContext`), so a call in a loop does
 * not flood the log. The set of fields remembered is bounded by {@link MAX_WARNED_FIELDS}.
 * Never throws.
 */
export function warnFieldOnce(logger: Logger, field: string, message: string): void {
  let seen = warned.get(logger);
  if (!seen) {
    seen = new Set();
    warned.set(logger, seen);
  }
  if (seen.has(field) || seen.size > MAX_WARNED_FIELDS) return;
  seen.add(field);
  logger.warn(seen.size > MAX_WARNED_FIELDS ? `${message} (further field warnings are not shown)` : message);
}

/** Edit distance of two short strings (insertions, deletions, substitutions), capped at 3. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return Math.min(prev[b.length]!, 3);
}

/** The known name `key` was most likely meant to be (a typo or a case slip), if any. */
export function closestName(key: string, known: Iterable<string>): string | undefined {
  if (key.length > 64) return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of known) {
    const d = name.toLowerCase() === key.toLowerCase() ? 0 : distance(key, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Warns once per logger and key that `key` is not a field `what` accepts (e.g. a typo such as
 * `metricColection`), suggesting the closest known name. Never throws.
 */
export function warnUnknownField(logger: Logger, what: string, key: string, known: Iterable<string>): void {
  const shown = key.length > 64 ? `${key.slice(0, 64)}...` : key;
  const guess = closestName(key, known);
  warnFieldOnce(logger, `${what}.${shown}`, `${shown} is not a field of ${what}${guess ? ` (did you mean ${guess}?)` : ""}; ignored`);
}
