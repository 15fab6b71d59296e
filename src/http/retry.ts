/** Statuses worth another attempt: timeouts, rate limits and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds, or undefined when it is absent or
 * unreadable. Accepts delta-seconds and HTTP dates (relative to `nowMillis`).
 */
export function parseRetryAfter(header: string | undefined, nowMillis: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMillis);
}

/** Exponential backoff with equal jitter: half fixed, half random, capped at `maxMillis`. */
export function backoffDelay(retry: number, initialMillis: number, maxMillis: number, random: () => number): number {
  const exp = Math.min(maxMillis, initialMillis * 2 ** retry);
  return Math.round(exp / 2 + (exp / 2) * random());
}

/** Error codes of a connection that could not be made at all: nothing listens, or no such host. */
const CONNECT_FAILURES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ConnectionRefused"]);

/**
 * Whether a request failed because no connection could be made (Node's `http` error codes, and
 * `fetch`'s, which carry them on `cause`), as opposed to one that broke or timed out.
 */
export function isConnectFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONNECT_FAILURES.has(code)) return true;
  }
  return false;
}
