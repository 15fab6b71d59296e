import { createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";

/** A fault the proxy injects instead of forwarding (or while forwarding, for `slow-body`). */
export type Fault = "500" | "502" | "503" | "429" | "reset" | "stall" | "slow-body" | "store-then-reset";

export interface FaultProxy {
  url: string;
  /** Requests seen, and per injected fault how many times. */
  counts: { requests: number; faults: Record<string, number> };
  close(): Promise<void>;
}

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Request headers not forwarded (lower case): e.g. `idempotency-key`, to stand in for a service that ignores it. */
  dropHeaders?: string[];
  /**
   * Where each request goes instead of `upstream`, asked per request: e.g. one emulator per
   * project, chosen by the request's API key header.
   */
  upstreamFor?: (request: ProxiedRequest) => string;
  /**
   * Awaited after the upstream stored a `store-then-reset` request and before its answer is
   * dropped: e.g. to kill the service between storing a write and answering it.
   */
  afterStore?: (n: number, request: ProxiedRequest) => Promise<void>;
}

/** A request as the proxy got it (`headers` lower case, as Node gives them). */
export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * A loopback proxy in front of `upstream` (or `options.upstreamFor`) that injects `fault(n, request)` on request n
 * (0-based), or forwards it untouched when that returns undefined. `stall` answers never (the client must time
 * out); `store-then-reset` forwards, lets the upstream store it, then drops the answer (the
 * client must retry something that already arrived); `slow-body` trickles the answer.
 */
export async function startFaultProxy(
  upstream: string,
  fault: (n: number, request: ProxiedRequest) => Fault | undefined,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const counts = { requests: 0, faults: {} as Record<string, number> };
  const server = createServer((req, res) => {
    const n = counts.requests++;
    const seen: ProxiedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers };
    const f = fault(n, seen);
    if (f) counts.faults[f] = (counts.faults[f] ?? 0) + 1;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (f === "500" || f === "502" || f === "503") {
        res.writeHead(Number(f), { "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, error: "injected" }));
        return;
      }
      if (f === "429") {
        res.writeHead(429, { "retry-after": "1", "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, error: "slow down" }));
        return;
      }
      if (f === "reset") {
        req.socket.destroy();
        return;
      }
      if (f === "stall") return;
      const headers = { ...req.headers };
      for (const h of options.dropHeaders ?? []) delete headers[h];
      const target = new URL(options.upstreamFor?.(seen) ?? upstream);
      const up = request(
        { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on("data", (c: Buffer) => body.push(c));
          upRes.on("end", () => {
            if (f === "store-then-reset") {
              const stored = options.afterStore?.(n, seen) ?? Promise.resolve();
              const reset = () => req.socket.destroy();
              void stored.then(reset, reset);
              return;
            }
            const all = Buffer.concat(body);
            res.writeHead(upRes.statusCode ?? 502, { ...upRes.headers, "content-length": String(all.length) });
            if (f === "slow-body") {
              // Half now, the rest on a later turn of the loop.
              res.write(all.subarray(0, all.length >> 1));
              setImmediate(() => res.end(all.subarray(all.length >> 1)));
            } else res.end(all);
          });
        },
      );
      up.on("error", () => req.socket.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
