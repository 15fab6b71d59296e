import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as it went through the proxy: which key it carried and which traces it named. */
export interface KeyedRequest {
  method: string;
  url: string;
  key: string | undefined;
  /** Uuids of the traces in a POST /v1/traces body (list or single form). */
  traces: string[];
  status: number;
}

/** A loopback proxy in front of the emulator that records the API key header of every request. */
export async function startKeyProxy(upstream: string, header = "service_api_key") {
  const target = new URL(upstream);
  const seen: KeyedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let traces: string[] = [];
      try {
        const body = JSON.parse(raw.toString("utf8")) as { traces?: { uuid: string }[]; uuid?: string };
        traces = body.traces ? body.traces.map((t) => t.uuid) : body.uuid ? [body.uuid] : [];
      } catch {
        // Not JSON: no traces.
      }
      const key = req.headers[header] as string | undefined;
      const up = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (upRes) => {
        const body: Buffer[] = [];
        upRes.on("data", (c: Buffer) => body.push(c));
        upRes.on("end", () => {
          seen.push({ method: req.method ?? "", url: req.url ?? "", key, traces, status: upRes.statusCode ?? 0 });
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          res.end(Buffer.concat(body));
        });
      });
      up.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      up.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
