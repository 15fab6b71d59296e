import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Handler, Judge, Plan, RouteContext } from "./context.js";
import { SchemaError } from "../spec/schema.js";
import { HttpError } from "./http-error.js";
import {
  bodyDigest,
  checkLimits,
  IDEMPOTENCY_HEADER,
  type IdempotencyLimits,
  IdempotencyStore,
  isRemembered,
  REPLAYED_HEADER,
  readIdempotencyKey,
} from "./idempotency.js";
import { decodeSegment, readJson } from "./json-body.js";
import { authenticate, createKey, keyView } from "./keys.js";
import { rotateKey, updateKey } from "./routes/api-keys.js";
import { createCollection, listCollections, updateCollection } from "./routes/collections.js";
import { pushDataset } from "./routes/datasets.js";
import { evaluate } from "./routes/evaluate.js";
import { batchCreateMetrics, createMetric, listMetrics, updateMetric } from "./routes/metrics.js";
import { evaluateSpan, evaluateThread, evaluateTrace } from "./routes/offline.js";
import { pushPrompt } from "./routes/prompts.js";
import { ingestTraces, updateTrace } from "./routes/traces.js";
import { type IdempotencyRecord, loadState, type KeyRecord, type State, saveState } from "./store.js";
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
  /**
   * How long and how many answers to writes sent with an `Idempotency-Key` are remembered (by
   * `clock`); they persist in `dataFile` with the rest. @default { ttlMillis: 86400000, maxEntries: 10000 }
   */
  idempotency?: Partial<IdempotencyLimits>;
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

/** The read API for tests, the demo and the viewer: what was stored, no key needed. */
function devRead(state: State, path: string): unknown {
  const parts = path.split("/").filter(Boolean).slice(1).map(decodeSegment);
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

/** A response about to be sent. */
interface Outcome {
  status: number;
  /** The JSON body, serialized. */
  text: string;
  /** Headers from processing the request (authentication adds its own). */
  headers: Record<string, string>;
  /** Whether a route handler ran to completion (its write, if any, happened). */
  applied: boolean;
}

function jsonOutcome(status: number, payload: unknown, applied = false): Outcome {
  return { status, text: JSON.stringify(payload), headers: {}, applied };
}

/** The `{success: false, error}` answer to a rejection (`deprecated` too on /v2 paths). */
function errorOutcome(err: unknown, path: string): Outcome {
  let status = 500;
  let headers: Record<string, string> = {};
  let error = `internal error: ${(err as Error).message}`;
  if (err instanceof SchemaError) {
    status = 400;
    error = err.message;
  } else if (err instanceof HttpError) {
    status = err.status;
    headers = err.headers;
    error = err.message;
  }
  const payload = path.startsWith("/v2/") ? { success: false, error, deprecated: false } : { success: false, error };
  return { ...jsonOutcome(status, payload), headers };
}

/** Runs a route handler; a rejection becomes its error answer rather than a throw. */
async function runHandler(handler: Handler, ctx: RouteContext, path: string): Promise<Outcome> {
  try {
    const result = await handler(ctx);
    return jsonOutcome(result.status ?? 200, result.body, true);
  } catch (err) {
    return errorOutcome(err, path);
  }
}

/** The remembered answer, marked as a replay. */
function replayOf(record: IdempotencyRecord): Outcome {
  return { status: record.status, text: record.body, headers: { ...record.headers, [REPLAYED_HEADER]: "true" }, applied: false };
}

/** Path (trailing slashes dropped) and query of a request target; 400 when it cannot be parsed. */
function parseUrl(target: string | undefined): { path: string; query: URLSearchParams } {
  let url: URL;
  try {
    url = new URL(target ?? "/", "http://local");
  } catch {
    throw new HttpError(400, `malformed request target "${String(target).slice(0, 200)}"`);
  }
  return { path: url.pathname.replace(/\/+$/, "") || "/", query: url.searchParams };
}

/** The route of a method and path; 404 for an unknown path, 405 (with `Allow`) for a wrong method. */
function findRoute(method: string, path: string): Route {
  const matches = routes.filter((r) => r.pattern.test(path));
  if (matches.length === 0) throw new HttpError(404, `no endpoint ${path}`);
  const r = matches.find((m) => m.method === method);
  if (!r) throw new HttpError(405, `${method} is not allowed on ${path}; use ${matches.map((m) => m.method).join(" or ")}`, { allow: matches.map((m) => m.method).join(", ") });
  return r;
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
  const limits = checkLimits(options.idempotency, "startDevServer: idempotency");
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

  const idempotency = new IdempotencyStore(state.idempotency, limits);

  /** Runs an API route: authentication, then the request once, or the remembered answer to it. */
  const callApi = async (req: IncomingMessage, method: string, path: string, authHeaders: Record<string, string>): Promise<Outcome> => {
    const r = findRoute(method, path);
    const now = clock();
    const auth = authenticate(state, req.headers[header.toLowerCase()] as string | undefined, r.scope, now, header);
    Object.assign(authHeaders, auth.headers);
    const isWrite = method !== "GET";
    const key = isWrite ? readIdempotencyKey(req.headers[IDEMPOTENCY_HEADER]) : undefined;
    const body = isWrite ? await readJson(req, maxBody) : {};
    const params = r.pattern.exec(path)?.groups ?? {};
    const decoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeSegment(v)]));
    const run = () => runHandler(r.handler, { state, now, plan, region, baseUrl, judge: options.judge, params: decoded, body }, path);
    if (key === undefined) return afterWrite(isWrite, await run(), false);
    const claim = await idempotency.claim({ scope: `${auth.key.scope}:${auth.key.id}`, key, method, path, bodyDigest: bodyDigest(body), now });
    if (claim.kind === "replay") return replayOf(claim.record);
    let outcome: Outcome | undefined;
    try {
      outcome = await run();
    } finally {
      // Remembered before the state is saved: the effect and its answer reach the file together.
      claim.finish(outcome && { status: outcome.status, body: outcome.text, headers: outcome.headers });
    }
    return afterWrite(isWrite, outcome, isRemembered(outcome.status));
  };

  /** Saves what a write did (and an answer just remembered) and tells the viewer. */
  const afterWrite = (isWrite: boolean, outcome: Outcome, remembered: boolean): Outcome => {
    if (isWrite && (outcome.applied || remembered)) persist();
    if (isWrite && outcome.applied) version++;
    return outcome;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // HEAD is answered as GET; Node leaves the body out.
    const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
    let path = (req.url ?? "/").slice(0, 200);
    const authHeaders: Record<string, string> = {};
    let outcome: Outcome;
    try {
      const url = parseUrl(req.url);
      path = url.path;
      if (method === "GET" && (path === "/" || path === "/index.html")) {
        outcome = { status: 200, text: viewerHtml, headers: { "content-type": "text/html; charset=utf-8" }, applied: false };
      } else if (path.startsWith("/_dev/")) {
        if (method !== "GET") throw new HttpError(405, `${method} is not allowed on ${path}`, { allow: "GET" });
        outcome = jsonOutcome(200, path === "/_dev/version" ? { version, traces: Object.keys(state.traces).length } : devRead(state, path));
      } else {
        outcome = await callApi(req, method, path, authHeaders);
      }
    } catch (err) {
      outcome = errorOutcome(err, path);
    }
    res.writeHead(outcome.status, { ...authHeaders, "content-type": "application/json", ...outcome.headers, "content-length": Buffer.byteLength(outcome.text) });
    res.end(outcome.text);
    const replayed = outcome.headers[REPLAYED_HEADER] ? " (idempotent replay)" : "";
    log(`${method} ${path} ${outcome.status} ${(performance.now() - started).toFixed(1)} ms${replayed}`);
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
