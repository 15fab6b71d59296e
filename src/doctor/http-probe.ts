/** What one probe request got: a status and body, or why there was none. */
export type ProbeAnswer = { status: number; body: string } | { error: string };

/**
 * One GET with a short deadline and no retry (a doctor must answer in seconds, not wait out a
 * client's backoff). Never throws.
 */
export async function probeGet(url: string, headers: Record<string, string>, timeoutMillis: number): Promise<ProbeAnswer> {
  try {
    const res = await fetch(url, { method: "GET", headers, signal: AbortSignal.timeout(timeoutMillis), redirect: "manual" });
    const body = await res.text();
    return { status: res.status, body: body.slice(0, 2000) };
  } catch (error) {
    return { error: describeFailure(error, timeoutMillis) };
  }
}

function describeFailure(error: unknown, timeoutMillis: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === "TimeoutError" || err.name === "AbortError") return `no answer within ${timeoutMillis} ms`;
  const cause = err.cause;
  if (cause?.code) return cause.message?.includes(cause.code) ? cause.message : `${cause.code}${cause.message ? ` (${cause.message})` : ""}`;
  return err.message ?? String(error);
}

/** The `message` of a JSON error body, or the body's first line. */
export function bodyMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    const m = parsed.message ?? parsed.error;
    if (typeof m === "string") return m;
  } catch {
    // not JSON
  }
  return body.split("\n")[0]!.slice(0, 200);
}
