import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dualProtocolServer } from "./h2c.js";
import type { SseOptions } from "./sse.js";

/** One request a fake model server received. */
export interface FakeRequest {
  /** HTTP method, e.g. `POST`. */
  method: string;
  /** Path relative to the fake's `url`, without the query string, e.g. `/chat/completions`. */
  path: string;
  /** Query string parameters, e.g. `{ alt: "sse" }`. */
  query: Record<string, string>;
  /** Request headers, with lower-case names. */
  headers: Record<string, string>;
  /** The JSON body (`{}` when there is none, or when it is not a JSON object). */
  body: Record<string, unknown>;
}

/** An error the next requests get from `failNext`. */
export interface FakeFailure {
  /** How many requests in a row fail (default 1). */
  times?: number;
  /** The error message (default: the API's usual one for the status). */
  message?: string;
  /** For 429 and 5xx: the `retry-after-ms` header (default 10; `retry-after` is its whole seconds, at least 1). */
  retryAfterMs?: number;
}

/** An error a fake answers with: status, message, and the retry delay it advertises. */
export interface FakeError {
  status: number;
  message?: string;
  retryAfterMs: number;
}

/** What every fake model server offers. */
export interface FakeModelServer {
  /** The base URL to give the SDK (see each fake for what it includes). */
  url: string;
  /** Every request received, in order, failed ones included (retries show up here). */
  requests: FakeRequest[];
  /** The next `times` requests (default 1), whatever they are, fail with `status` in the API's error shape. */
  failNext(status: number, options?: FakeFailure): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** The API-specific part of a fake: where it lives, its error shape and its routes. */
export interface FakeApi {
  /** The path prefix included in `url`, e.g. `/v1`; requests without it are accepted too. */
  prefix: string;
  /** The model a request names, to trigger errors by model name. */
  modelOf(req: FakeRequest): string | undefined;
  /** Writes an error in the API's documented shape. */
  writeError(res: ServerResponse, error: FakeError, req: FakeRequest): void;
  /** Answers a request that is not made to fail. */
  handle(req: FakeRequest, res: ServerResponse): void | Promise<void>;
  /** Also speak cleartext HTTP/2 (prior knowledge) on the same port, for SDKs that use it. */
  http2?: boolean;
}

/** Request header that makes a fake answer with an error status, e.g. `x-fake-error: 429`. */
export const ERROR_HEADER = "x-fake-error";
/** Request header: milliseconds between streamed events. */
export const STREAM_DELAY_HEADER = "x-fake-stream-delay-ms";
/** Request header: number of streamed events sent before the API's in-stream error event. */
export const STREAM_ERROR_AFTER_HEADER = "x-fake-stream-error-after";

const DEFAULT_RETRY_AFTER_MS = 10;

/** The error status a model name asks for: `error-429` → 429. */
const statusFromModel = (model: string | undefined): number | undefined => {
  const m = model === undefined ? null : /(?:^|\/)error-(\d{3})$/.exec(model);
  return m ? Number(m[1]) : undefined;
};

const validStatus = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n >= 400 && n <= 599;

/** The pacing and mid-stream failure a request asks for with the `x-fake-stream-*` headers. */
export function sseControls(req: FakeRequest): SseOptions {
  const delay = Number(req.headers[STREAM_DELAY_HEADER]);
  const after = req.headers[STREAM_ERROR_AFTER_HEADER];
  return {
    ...(Number.isFinite(delay) && delay > 0 ? { delayMs: delay } : {}),
    ...(after !== undefined && Number.isInteger(Number(after)) ? { failAfter: Number(after) } : {}),
  };
}

/** `retry-after-ms` and `retry-after` for a throttling or server error, nothing for other statuses. */
export function retryHeaders(error: FakeError): Record<string, string> {
  if (error.status !== 429 && error.status < 500) return {};
  return { "retry-after-ms": String(error.retryAfterMs), "retry-after": String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) };
}

/** Writes `value` as a JSON response. */
export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

/**
 * Starts a fake model server on 127.0.0.1, on a free port: it records every request, then fails it
 * when asked (`failNext`, the `x-fake-error` header, or a model named `error-<status>`), else hands
 * it to the API's routes.
 */
export async function startFakeServer(api: FakeApi): Promise<FakeModelServer> {
  const requests: FakeRequest[] = [];
  const queued: FakeError[] = [];
  const onRequest = (incoming: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (c: Buffer) => chunks.push(c));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://fake");
      const path = url.pathname.startsWith(`${api.prefix}/`) ? url.pathname.slice(api.prefix.length) : url.pathname;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(incoming.headers)) if (v !== undefined && !k.startsWith(":")) headers[k] = Array.isArray(v) ? v.join(", ") : v;
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> = {};
      let badJson = false;
      if (raw.trim() !== "") {
        try {
          const parsed: unknown = JSON.parse(raw);
          if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
          else badJson = true;
        } catch {
          badJson = true;
        }
      }
      const req: FakeRequest = { method: incoming.method ?? "GET", path, query: Object.fromEntries(url.searchParams), headers, body };
      requests.push(req);
      const fail = (error: FakeError) => api.writeError(res, error, req);
      if (badJson) return fail({ status: 400, message: "We could not parse the JSON body of your request.", retryAfterMs: DEFAULT_RETRY_AFTER_MS });
      const next = queued.shift();
      if (next) return fail(next);
      const fromHeader = Number(headers[ERROR_HEADER]);
      if (validStatus(fromHeader)) return fail({ status: fromHeader, retryAfterMs: DEFAULT_RETRY_AFTER_MS });
      const fromModel = statusFromModel(api.modelOf(req));
      if (validStatus(fromModel)) return fail({ status: fromModel, retryAfterMs: DEFAULT_RETRY_AFTER_MS });
      Promise.resolve()
        .then(() => api.handle(req, res))
        .catch((e: unknown) => {
          if (!res.headersSent) fail({ status: 500, message: `fake server error: ${e instanceof Error ? e.message : String(e)}`, retryAfterMs: DEFAULT_RETRY_AFTER_MS });
          else res.destroy();
        });
    });
  };
  const http1 = createServer(onRequest);
  const dual = api.http2 ? dualProtocolServer(http1, onRequest) : undefined;
  const server = dual?.server ?? http1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${api.prefix}`,
    requests,
    failNext(status, options = {}) {
      if (!validStatus(status)) throw new RangeError(`failNext: status must be 400-599, got ${status}`);
      for (let i = 0; i < (options.times ?? 1); i++) {
        queued.push({ status, retryAfterMs: options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS, ...(options.message !== undefined ? { message: options.message } : {}) });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (dual) dual.closeAll();
        else http1.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
