import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** What one probe request got: a status and body, or why there was none. */
export type ProbeAnswer = { status: number; body: string } | { error: string };

/** The most of a body kept: an error message or the emulator's version answer is short. */
const MAX_BODY = 2000;

/**
 * One GET with a short deadline and no retry (a doctor must answer in seconds, not wait out a
 * client's backoff), through node:http so that a refused connection reads the same everywhere
 * (ECONNREFUSED). Never throws.
 */
export function probeGet(url: string, headers: Record<string, string>, timeoutMillis: number): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: ProbeAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    let req: ReturnType<typeof httpRequest> | undefined;
    const timer = setTimeout(() => {
      done({ error: `no answer within ${timeoutMillis} ms` });
      req?.destroy();
    }, timeoutMillis);
    try {
      const send = url.startsWith("https:") ? httpsRequest : httpRequest;
      req = send(url, { method: "GET", headers, agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (body.length < MAX_BODY) body += chunk;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, body: body.slice(0, MAX_BODY) }));
        res.on("error", (error) => done({ error: describeFailure(error) }));
      });
      req.on("error", (error) => done({ error: describeFailure(error) }));
      req.end();
    } catch (error) {
      // A header value Node refuses, an address it cannot parse: an answer, not a throw.
      done({ error: describeFailure(error) });
    }
  });
}

function describeFailure(error: unknown): string {
  const err = error as { code?: string; message?: string };
  if (err.code && !err.message?.includes(err.code)) return `${err.code}${err.message ? ` (${err.message})` : ""}`;
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
