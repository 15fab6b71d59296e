// A loopback receiver for the benchmarks, run as a child process: it answers like each service
// (after reading the body) and counts spans and bytes. Every subject gets its own prefix
// (`/s/<name>/...`), so a subject whose delivery lags cannot be credited to another. Counted:
// the service's `POST /v1/traces` (list and single-trace forms, camelCase or snake_case lists),
// OTLP/HTTP JSON (`resourceSpans`), OTLP/HTTP protobuf (ExportTraceServiceRequest, read
// field by field: resource_spans → scope_spans → spans), LangSmith's `/runs/multipart` (distinct runs) and `/runs/batch`.
import { createServer } from "node:http";
import { gunzipSync } from "node:zlib";

const totals = { traces: 0, spans: 0, bytes: 0 };
/** name → { spans, bytes, requests, uncounted, runs? } (uncounted: requests with a body in no format it reads) */
const bySubject = new Map();
const subject = (name) => {
  let s = bySubject.get(name);
  if (!s) bySubject.set(name, (s = { spans: 0, bytes: 0, requests: 0, uncounted: 0, runs: new Set() }));
  return s;
};

const listKeys = ["baseSpans", "llmSpans", "retrieverSpans", "agentSpans", "toolSpans"];
const snakeKeys = ["base_spans", "llm_spans", "retriever_spans", "agent_spans", "tool_spans"];
const spansOfTrace = (t) => listKeys.reduce((n, k, i) => n + (t[k] ?? t[snakeKeys[i]] ?? []).length, 0);

/** Spans in a request body, by the format it is in. */
function count(path, headers, body, s) {
  if (path.endsWith("/runs/multipart")) {
    // One part per run created (post.<id>) or updated (patch.<id>); a run counts once.
    let fresh = 0;
    for (const m of body.toString("latin1").matchAll(/name="(?:post|patch)\.([0-9a-f-]{36})"/g)) {
      if (!s.runs.has(m[1])) {
        s.runs.add(m[1]);
        fresh++;
      }
    }
    return { spans: fresh, traces: 0 };
  }
  if ((headers["content-type"] ?? "").includes("protobuf")) return { spans: otlpProtobufSpans(body), traces: 0 };
  if (!(headers["content-type"] ?? "").includes("json") || body.length === 0) return { spans: 0, traces: 0, uncounted: body.length > 0 };
  const parsed = JSON.parse(body.toString("utf8"));
  if (path.endsWith("/runs/batch")) {
    let fresh = 0;
    for (const r of [...(parsed.post ?? []), ...(parsed.patch ?? [])]) {
      if (!s.runs.has(r.id)) {
        s.runs.add(r.id);
        fresh++;
      }
    }
    return { spans: fresh, traces: 0 };
  }
  if (Array.isArray(parsed.resourceSpans)) {
    let n = 0;
    for (const rs of parsed.resourceSpans) for (const ss of rs.scopeSpans ?? []) n += (ss.spans ?? []).length;
    return { spans: n, traces: 0 };
  }
  if (Array.isArray(parsed.traces)) return { spans: parsed.traces.reduce((n, t) => n + spansOfTrace(t), 0), traces: parsed.traces.length };
  if (listKeys.some((k) => k in parsed) || snakeKeys.some((k) => k in parsed)) return { spans: spansOfTrace(parsed), traces: 1 };
  return { spans: 0, traces: 0, uncounted: true };
}

/** Calls `each(field, start, end)` for every length-delimited field of the protobuf message in buf[start, end). */
function lengthDelimited(buf, start, end, each) {
  let i = start;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++];
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  };
  while (i < end) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const len = varint();
      each(Math.floor(key / 8), i, i + len);
      i += len;
    } else throw new Error(`protobuf wire type ${wire}`);
  }
  if (i !== end) throw new Error("protobuf message overruns its bounds");
}

/** Spans in an OTLP ExportTraceServiceRequest: resource_spans (1) → scope_spans (2) → spans (2). */
function otlpProtobufSpans(body) {
  let n = 0;
  lengthDelimited(body, 0, body.length, (f, a, b) => {
    if (f !== 1) return;
    lengthDelimited(body, a, b, (f2, c, d) => {
      if (f2 !== 2) return;
      lengthDelimited(body, c, d, (f3) => {
        if (f3 === 2) n++;
      });
    });
  });
  return n;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let body = Buffer.concat(chunks);
    const m = /^\/s\/([^/]+)(\/.*)?$/.exec(req.url ?? "");
    const name = m ? decodeURIComponent(m[1]) : "";
    const path = m ? (m[2] ?? "/") : (req.url ?? "/");
    const s = subject(name);
    if (req.method === "GET" && path === "/_stats") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ spans: s.spans, bytes: s.bytes, requests: s.requests, uncounted: s.uncounted }));
      return;
    }
    if (req.method === "GET" && path === "/info") {
      // LangSmith asks what the server takes: multipart, uncompressed.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ version: "bench", batch_ingest_config: { use_multipart_endpoint: true } }));
      return;
    }
    s.bytes += body.length;
    s.requests++;
    totals.bytes += body.length;
    try {
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const got = count(path, req.headers, body, s);
      s.spans += got.spans;
      if (got.uncounted) s.uncounted++;
      totals.spans += got.spans;
      totals.traces += got.traces;
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end('{"error":"unreadable body"}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"success":true}');
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("message", (msg) => {
  if (msg === "stats") process.send(totals);
  if (msg === "reset") {
    totals.traces = totals.spans = totals.bytes = 0;
    bySubject.clear();
  }
  if (msg === "stop") server.close(() => process.exit(0));
});
