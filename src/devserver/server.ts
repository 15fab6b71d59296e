import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Handler, Judge, Plan } from "./context.js";
import { SchemaError } from "../spec/schema.js";
import { HttpError } from "./http-error.js";
import { authenticate, createKey, keyView } from "./keys.js";
import { rotateKey, updateKey } from "./routes/api-keys.js";
import { createCollection, listCollections, updateCollection } from "./routes/collections.js";
import { pushDataset } from "./routes/datasets.js";
import { evaluate } from "./routes/evaluate.js";
import { batchCreateMetrics, createMetric, listMetrics, updateMetric } from "./routes/metrics.js";
import { evaluateSpan, evaluateThread, evaluateTrace } from "./routes/offline.js";
import { pushPrompt } from "./routes/prompts.js";
import { ingestTraces, updateTrace } from "./routes/traces.js";
import { loadState, type KeyRecord, type State, saveState } from "./store.js";
import { viewerHtml } from "./viewer.js";

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Port to listen on; 0 picks a free one. @default 4680 */
  port?: number;
  /** Address to listen on. @default "127.0.0.1" */
  host?: string;
  /** Plan the project is on; dataset versions need `team`. @default "free" */
  plan?: Plan;
  /** Milliseconds since the epoch, for key grace periods and expiry; inject one to move time in tests. @default Date.now */
  clock?: () => number;
  /** Scores metrics; without one, evaluations are recorded as NOT_JUDGED. */
  judge?: Judge;
  /** File that keeps the state across restarts; every acknowledged write is in it. In memory when absent. */
  dataFile?: string;
  /** Receives one line per request (`POST /v1/traces 200 3 ms`). */
  log?: (line: string) => void;
  /** Largest request body, in bytes; larger ones get 413. @default 33554432 (32 MiB) */
  maxBodyBytes?: number;
  /** Region in key values (`svc_<region>_proj_...`). @default "local" */
  region?: string;
  /** Name of the authentication header. @default "SERVICE_API_KEY" */
  apiKeyHeader?: string;
}

/** A running emulator. */
export interface DevServer {
  /** Base URL, e.g. `http://127.0.0.1:4680`. */
  url: string;
  /** A project API key (for traces, metrics, prompts, datasets ...). */
  projectKey: string;
  /** An organization API key (for the two key endpoints) and its id. */
  orgKey: string;
  orgKeyId: number;
  /** The live state, for tests and tools to read. Do not modify it. */
  readonly state: State;
  /** Creates another key, e.g. a second organization key or one that expires. */
  createApiKey(options: { scope: "org" | "project"; name?: string; expiresInDays?: number | null }): { id: number; value: string };
  close(): Promise<void>;
}

interface Route {
  method: string;
  pattern: RegExp;
  scope: "org" | "project";
  handler: Handler;
}

const route = (method: string, path: string, scope: Route["scope"], handler: Handler): Route => ({
  method,
  pattern: new RegExp(`^${path.replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`),
  scope,
  handler,
});

const routes: Route[] = [
  route("POST", "/v1/organization/api-keys/:apiKeyId/rotate", "org", rotateKey),
  route("PUT", "/v2/organization/api-keys/:apiKeyId", "org", updateKey),
  route("POST", "/v1/metrics", "project", createMetric),
  route("GET", "/v1/metrics", "project", listMetrics),
  route("POST", "/v1/batch-metrics", "project", batchCreateMetrics),
  route("PUT", "/v1/metrics/:id", "project", updateMetric),
  // `/v1/metrics-collections` is the spec's noted misspelling: an alias.
  ...["metric-collections", "metrics-collections"].flatMap((p) => [
    route("POST", `/v1/${p}`, "project", createCollection),
    route("GET", `/v1/${p}`, "project", listCollections),
    route("PUT", `/v1/${p}/:id`, "project", updateCollection),
  ]),
  route("POST", "/v1/evaluate", "project", evaluate),
  route("POST", "/v1/evalate", "project", evaluate),
  route("POST", "/v1/traces", "project", ingestTraces),
  route("PUT", "/v1/traces/:uuid", "project", updateTrace),
  route("POST", "/v1/evaluate/threads/:id", "project", evaluateThread),
  route("POST", "/v1/evaluate/traces/:uuid", "project", evaluateTrace),
  route("POST", "/v1/evaluate/spans/:uuid", "project", evaluateSpan),
  route("POST", "/v2/prompts", "project", pushPrompt),
  route("POST", "/v2/datasets", "project", pushDataset),
];

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpError(413, `request body is larger than ${limit} bytes`));
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The read API for tests, the demo and the viewer: what was stored, no key needed. */
function devRead(state: State, path: string): unknown {
  const parts = path.split("/").filter(Boolean).slice(1).map(decodeURIComponent);
  const [what, id] = parts;
  const summary = (uuid: string) => {
    const tr = state.traces[uuid]!;
    return { uuid, ...tr.fields, spanCount: tr.spans.length, receivedAt: tr.receivedAt };
  };
  switch (what) {
    case "traces":
      if (id) {
        const tr = state.traces[id];
        if (!tr) throw new HttpError(404, `no trace with uuid ${id}`);
        return { ...summary(id), spans: tr.spans, jobs: state.jobs.filter((j) => j.targetId === id || tr.spans.some((s) => s.uuid === j.targetId)) };
      }
      return Object.keys(state.traces).map(summary).reverse();
    case "threads":
      if (id) return (state.threads[id] ?? []).map(summary);
      return state.threads;
    case "users":
      return state.users;
    case "jobs":
      return state.jobs;
    case "test-runs":
      return state.testRuns;
    case "prompts":
      return state.prompts;
    case "datasets":
      return state.datasets;
    case "metrics":
      return state.metrics;
    case "metric-collections":
      return state.collections;
    case "keys":
      return state.keys.map((k) => ({ scope: k.scope, ...keyView(k) }));
  }
  throw new HttpError(404, `no read endpoint ${path}`);
}

/**
 * Starts the local emulator of the service: every endpoint of the spec with its rules, on
 * loopback, with no account.
 *
 * @example
 * const dev = await startDevServer({ port: 0 });
 * configure({ apiKey: dev.projectKey, baseUrl: dev.url });
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const clock = options.clock ?? Date.now;
  const region = options.region ?? "local";
  const plan = options.plan ?? "free";
  if (plan !== "free" && plan !== "team") throw new TypeError(`startDevServer: plan must be "free" or "team"; got ${JSON.stringify(plan)}`);
  const header = options.apiKeyHeader ?? "SERVICE_API_KEY";
  const maxBody = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const log = options.log ?? (() => {});
  const state = loadState(options.dataFile);
  const persist = () => {
    if (options.dataFile) saveState(options.dataFile, state);
  };
  const first = (scope: KeyRecord["scope"]) => state.keys.find((k) => k.scope === scope) ?? createKey(state, region, clock(), { scope, name: `dev ${scope} key` });
  const projectKey = first("project");
  const orgKey = first("org");
  persist();
  let baseUrl = "";
  /** Bumped by every acknowledged write: the viewer polls it to know when to refresh. */
  let version = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const url = new URL(req.url ?? "/", "http://local");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    const isV2 = path.startsWith("/v2/");
    let status = 200;
    let payload: unknown;
    const headers: Record<string, string> = {};
    try {
      if (method === "GET" && (path === "/" || path === "/index.html")) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(viewerHtml);
        log(`${method} ${path} 200`);
        return;
      }
      if (path.startsWith("/_dev/")) {
        if (method !== "GET") throw new HttpError(405, `${method} is not allowed on ${path}`);
        payload = path === "/_dev/version" ? { version, traces: Object.keys(state.traces).length } : devRead(state, path);
      } else {
        const matches = routes.filter((r) => r.pattern.test(path));
        if (matches.length === 0) throw new HttpError(404, `no endpoint ${path}`);
        const r = matches.find((m) => m.method === method);
        if (!r) throw new HttpError(405, `${method} is not allowed on ${path}; use ${matches.map((m) => m.method).join(" or ")}`, { allow: matches.map((m) => m.method).join(", ") });
        const now = clock();
        const auth = authenticate(state, req.headers[header.toLowerCase()] as string | undefined, r.scope, now, header);
        Object.assign(headers, auth.headers);
        let body: unknown = {};
        if (method !== "GET") {
          const raw = await readBody(req, maxBody);
          if (raw.trim().length > 0) {
            const type = req.headers["content-type"] ?? "";
            if (!/^application\/json\b/i.test(type)) throw new HttpError(415, `Content-Type must be application/json; got "${type || "none"}"`);
            try {
              body = JSON.parse(raw);
            } catch (err) {
              throw new HttpError(400, `malformed JSON body: ${(err as Error).message}`);
            }
          }
        }
        const params = r.pattern.exec(path)?.groups ?? {};
        const decoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeURIComponent(v)]));
        const result = await r.handler({ state, now, plan, region, baseUrl, judge: options.judge, params: decoded, body });
        status = result.status ?? 200;
        payload = result.body;
        if (method !== "GET") {
          persist();
          version++;
        }
      }
    } catch (err) {
      if (err instanceof SchemaError) {
        status = 400;
        payload = { success: false, error: err.message };
      } else if (err instanceof HttpError) {
        status = err.status;
        Object.assign(headers, err.headers);
        payload = { success: false, error: err.message };
      } else {
        status = 500;
        payload = { success: false, error: `internal error: ${(err as Error).message}` };
      }
      if (isV2 && payload && typeof payload === "object") (payload as Record<string, unknown>).deprecated = false;
    }
    const text = JSON.stringify(payload);
    res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
    log(`${method} ${path} ${status} ${(performance.now() - started).toFixed(1)} ms`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: false, error: String(err) }));
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 4680, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    url: baseUrl,
    projectKey: projectKey.value,
    orgKey: orgKey.value,
    orgKeyId: orgKey.id,
    state,
    createApiKey(o) {
      const key = createKey(state, region, clock(), o);
      persist();
      return { id: key.id, value: key.value };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
