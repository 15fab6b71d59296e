// A loopback receiver for the benchmarks, run as a child process: it answers POST /v1/traces
// like the service (after reading the body) and counts traces, spans and bytes.
import { createServer } from "node:http";

let traces = 0;
let spans = 0;
let bytes = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    bytes += body.length;
    if (req.url === "/v1/traces" && req.method === "POST") {
      const parsed = JSON.parse(body.toString("utf8"));
      for (const t of parsed.traces) {
        traces++;
        spans += t.baseSpans.length + t.llmSpans.length + t.retrieverSpans.length + t.agentSpans.length + t.toolSpans.length;
      }
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"success":true}');
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("message", (m) => {
  if (m === "stats") process.send({ traces, spans, bytes });
  if (m === "reset") traces = spans = bytes = 0;
  if (m === "stop") server.close(() => process.exit(0));
});
