import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: unknown;
  raw: string;
}

/** What the scripted server does with request number `n` (0-based). */
export type Reply =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | "reset"
  | "stall";

export interface Recorder {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP server on a free port that records every request and answers as `script`
 * says (default: 200 `{success: true}`).
 */
export async function startRecorder(script: (n: number, req: RecordedRequest) => Reply = () => ({ status: 200 })): Promise<Recorder> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      raw += c;
    });
    req.on("end", () => {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const rec = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, raw };
      const n = requests.length;
      requests.push(rec);
      const reply = script(n, rec);
      if (reply === "reset") {
        req.socket.destroy();
        return;
      }
      if (reply === "stall") return;
      const text = JSON.stringify(reply.body ?? { success: true });
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Every trace in the POST /v1/traces requests recorded. */
export function postedTraces(requests: RecordedRequest[]): Record<string, unknown>[] {
  return requests
    .filter((r) => r.method === "POST" && r.url === "/v1/traces")
    .flatMap((r) => (r.body as { traces: Record<string, unknown>[] }).traces);
}

/** All spans of a wire trace, flat. */
export function allSpans(trace: Record<string, unknown>): Record<string, unknown>[] {
  return ["baseSpans", "llmSpans", "retrieverSpans", "agentSpans", "toolSpans"].flatMap((k) => (trace[k] as Record<string, unknown>[] | undefined) ?? []);
}
