import type { IncomingMessage, RequestOptions } from "node:http";
import type { RequestBody, Sender } from "./sender.js";

type HttpModule = typeof import("node:http");

/**
 * A sender on Node's own `http`/`https` modules with keep-alive pools: per request it costs less
 * CPU than undici's `request()` (measured in bench/: the export path is where our overhead
 * is), and it needs no dependency. Idle pooled connections do not keep the process alive and
 * are closed after {@link IDLE_MILLIS}; `close()` destroys every connection, in flight or idle.
 * `timeoutMillis` bounds the wait for each step of an answer (headers, then each chunk of the
 * body), like undici's `headersTimeout`/`bodyTimeout`.
 */
export async function nodeSender(): Promise<{ send: Sender; close: () => void }> {
  // Specifiers bundlers do not follow: edge builds must not try to resolve Node's modules.
  const http = (await import(/* @vite-ignore */ /* webpackIgnore: true */ HTTP)) as HttpModule;
  const https = (await import(/* @vite-ignore */ /* webpackIgnore: true */ HTTPS)) as HttpModule;
  const options = { keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_MILLIS, scheduling: "lifo" as const };
  const httpAgent = new http.Agent(options);
  const httpsAgent = new https.Agent(options);
  const send: Sender = (url, init) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const isHttps = target.protocol === "https:";
      const headers: Record<string, string | number> = { ...init.headers };
      if (init.body !== undefined) headers["content-length"] = byteLength(init.body);
      const request: RequestOptions = { method: init.method, headers, agent: isHttps ? httpsAgent : httpAgent };
      const req = (isHttps ? https : http).request(target, request, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
        res.on("aborted", () => reject(new Error("the connection closed before the whole answer arrived")));
      });
      req.setTimeout(init.timeoutMillis, () => req.destroy(new Error(`no response within ${init.timeoutMillis} ms`)));
      req.on("error", reject);
      req.end(init.body);
    });
  const close = () => {
    httpAgent.destroy();
    httpsAgent.destroy();
  };
  return { send, close };
}

/** Pooled connections per origin, as many as the export's concurrency could ever use. */
const MAX_SOCKETS = 32;
/** An idle pooled connection is closed after this long (servers often close theirs at 5 s). */
const IDLE_MILLIS = 4_000;

const HTTP: string = ["node", "http"].join(":");
const HTTPS: string = ["node", "https"].join(":");

function byteLength(body: RequestBody): number {
  return typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.byteLength;
}

/** Node's header record with repeated headers joined, as `fetch` gives them. */
function flatHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}
