import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Handler, Judge, Plan, RouteContext } from "./context.js";
import { SchemaError } from "../protocol/schema.js";
import { HttpError } from "./http-error.js";
import {
  bodyDigestSliced,
  checkLimits,
  IDEMPOTENCY_HEADER,
  type IdempotencyLimits,
  IdempotencyStore,
  isRemembered,
  REPLAYED_HEADER,
  readIdempotencyKey,
} from "./idempotency.js";
import { hostChecker, isLoopback } from "./host-check.js";
import { type Changes, Journal, noChanges } from "./store/journal.js";
import { DEFAULT_HELD_LIMITS } from "./store/lazy-traces.js";
import { decodeSegment, readJson } from "./json-body.js";
import { authenticate, createKey, isExpired, settle } from "./keys.js";
import { ReadAccess } from "./viewer/access.js";
import { devRead } from "./viewer/read-api.js";
import { rotateKey, updateKey } from "./routes/api-keys.js";
import { createCollection, listCollections, updateCollection } from "./routes/collections.js";
import { pushDataset } from "./routes/datasets.js";
import { evaluate } from "./routes/evaluate.js";
import { batchCreateMetrics, createMetric, listMetrics, updateMetric } from "./routes/metrics.js";
import { evaluateSpan, evaluateThread, evaluateTrace } from "./routes/offline.js";
import { pushPrompt } from "./routes/prompts.js";
import { ingestTraces, updateTrace } from "./routes/traces.js";
import { emptyState, type IdempotencyRecord, type KeyRecord, type State } from "./store/store.js";
import { stringifyJsonSliced } from "./sliced-json.js";
import { TimeSlicer } from "./time-slicer.js";
import { dropTrace, TraceOrder } from "./store/trace-order.js";
import { viewerHtml } from "./viewer/page/html.js";
import { ViewerApi } from "./viewer/api.js";
import { ViewerEvents } from "./viewer/events.js";
import { WriteLock } from "./store/write-lock.js";

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
  /**
   * File that keeps the state across restarts: an append-only journal, one JSON line per
   * acknowledged write, fsync'd before the answer, compacted as it grows. A file in the former
   * whole-state format is read and converted. In memory when absent.
   */
  dataFile?: string;
  /**
   * With `dataFile`, how many of the most recently used traces stay in memory (besides the
   * indexes every trace has there: uuid, place in the file, spans, thread, user, list row);
   * any other is read from the file when asked for. @default 1000
   */
  heldTraces?: number;
  /**
   * Most traces kept; beyond it the oldest are evicted (and counted in the log).
   * @default 10000 in memory; unbounded with `dataFile`
   */
  maxTraces?: number;
  /**
   * Reject what the spec does not allow (unknown fields, off-spec types, the hyphenated key
   * header) instead of accepting it as the live service does. The environment variable
   * `EVALTRACE_DEV_STRICT=1` makes strict the default (our own SDK's tests run that way).
   * @default false
   */
  strict?: boolean;
  /**
   * Host names (the `Host` header) the viewer and read API answer besides loopback names, IP
   * literals and `host`; `["*"]` turns the DNS-rebinding check off. @default []
   */
  allowedHosts?: string[];
  /**
   * Whether the viewer and the read API need the project key (or the session of the one-time
   * login link). @default true when `host` is not a loopback address
   */
  protectReads?: boolean;
  /** Time a client has to send the request headers; Node's check runs every second. @default 10000 */
  headersTimeoutMillis?: number;
  /** Time a client has to send a whole request. @default 60000 */
  requestTimeoutMillis?: number;
  /** Idle time after which a kept-alive connection is closed. @default 5000 */
  keepAliveTimeoutMillis?: number;
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
  /**
   * The live state, for tests and tools to read. Do not modify it. With `dataFile`,
   * `state.traces` holds only the recently used traces in memory and reads any other from the
   * file when it is accessed (`Object.keys` reads none).
   */
  readonly state: State;
  /** Whether off-spec input is rejected (see {@link DevServerOptions.strict}). */
  strict: boolean;
  /** The one-time link that opens the viewer when reads are protected (a non-loopback `host`); undefined otherwise. */
  loginUrl: string | undefined;
  /** Warnings for the banner, e.g. about listening beyond loopback. */
  warnings: string[];
  /** How many traces were evicted by `maxTraces` since the start. */
  readonly evictedTraces: number;
  /** How many traces are held in memory: all of them without `dataFile`, the recently used with it. */
  readonly tracesInMemory: number;
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

/** Default bound of traces kept in memory (without `dataFile`). */
export const DEFAULT_MAX_TRACES = 10_000;

/** `EVALTRACE_DEV_STRICT` as a boolean: the environment read once, at the edge. */
function strictFromEnv(): boolean {
  const v = process.env.EVALTRACE_DEV_STRICT;
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
}

/** The other spelling of a header name (`SERVICE_API_KEY` <-> `SERVICE-API-KEY`), lower case. */
function otherSpelling(header: string): string {
  const h = header.toLowerCase();
  return h.includes("_") ? h.replaceAll("_", "-") : h.replaceAll("-", "_");
}

function positive(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !(v > 0)) throw new TypeError(`startDevServer: ${name} must be a positive number; got ${JSON.stringify(v)}`);
  return v;
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
  const strict = options.strict ?? strictFromEnv();
  const maxTraces = positive("maxTraces", options.maxTraces, options.dataFile ? Number.POSITIVE_INFINITY : DEFAULT_MAX_TRACES);
  const bindHost = options.host ?? "127.0.0.1";
  const protectReads = options.protectReads ?? !isLoopback(bindHost);
  const checkHost = hostChecker(bindHost, options.allowedHosts ?? []);
  const access = new ReadAccess();
  const warnings: string[] = [];
  if (!isLoopback(bindHost)) {
    warnings.push(
      `listening on ${bindHost}, beyond loopback: anyone who can reach this address can send requests; the viewer and the read API ${protectReads ? "need the project API key or the one-time login link" : "are OPEN to everyone (protectReads: false)"}`,
    );
  }

  const held = { ...DEFAULT_HELD_LIMITS, traces: positive("heldTraces", options.heldTraces, DEFAULT_HELD_LIMITS.traces) };
  const loaded = options.dataFile ? Journal.open(options.dataFile, undefined, held) : undefined;
  const state = loaded?.state ?? emptyState();
  const order = new TraceOrder();
  for (const uuid of loaded?.order ?? []) order.add(uuid);
  let evictedTraces = 0;
  const first = (scope: KeyRecord["scope"]) => state.keys.find((k) => k.scope === scope) ?? createKey(state, region, clock(), { scope, name: `dev ${scope} key` });
  const projectKey = first("project");
  const orgKey = first("org");
  const lock = new WriteLock();
  const idempotency = new IdempotencyStore(state.idempotency, limits);
  let baseUrl = "";
  /** Bumped by every acknowledged write: the viewer hears of it through `/_dev/events`. */
  let version = 0;
  const viewerApi = new ViewerApi(state, order);
  const viewerEvents = new ViewerEvents();

  /** Evicts the oldest traces beyond `maxTraces`; returns their uuids. */
  const evict = (): string[] => {
    const gone: string[] = [];
    while (order.size > maxTraces) {
      const uuid = order.oldest()!;
      order.remove(uuid);
      dropTrace(state, uuid);
      gone.push(uuid);
    }
    if (gone.length > 0) {
      evictedTraces += gone.length;
      log(`evicted the ${gone.length} oldest trace(s) beyond --max-traces ${maxTraces}; ${evictedTraces} evicted since the start`);
    }
    return gone;
  };

  /** Makes what a write changed durable (journal, fsync) and bounded (eviction). */
  const commit = async (changed: Changes, before: { jobs: number; testRuns: number; lastAnswer: IdempotencyRecord | undefined }, slicer: TimeSlicer) => {
    for (const uuid of changed.traces) order.add(uuid);
    changed.evicted.push(...evict());
    for (const uuid of [...changed.traces, ...changed.evicted]) viewerApi.forget(uuid);
    if (!loaded) return;
    const at = before.lastAnswer ? state.idempotency.lastIndexOf(before.lastAnswer) : -1;
    await loaded.journal.commit(
      state,
      changed,
      { jobs: state.jobs.slice(before.jobs), testRuns: state.testRuns.slice(before.testRuns), idempotency: state.idempotency.slice(at + 1) },
      slicer,
    );
    if (loaded.journal.wantsCompaction) {
      const started = performance.now();
      await loaded.journal.compact(state, order.page(Number.POSITIVE_INFINITY).uuids.reverse(), slicer);
      log(`compacted ${options.dataFile} to ${loaded.journal.size} bytes in ${(performance.now() - started).toFixed(0)} ms`);
    }
    // Every change is in the file now: the traces beyond the memory bound can go.
    loaded.traces.trim();
  };
  await lock.run(() => commit(noChanges(), { jobs: state.jobs.length, testRuns: state.testRuns.length, lastAnswer: state.idempotency.at(-1) }, new TimeSlicer()));

  /** The presented API key: the configured header, or (lenient) its other spelling. */
  const presentedKey = (req: IncomingMessage, note: (line: string) => void): string | undefined => {
    const exact = req.headers[header.toLowerCase()];
    if (exact !== undefined) return String(exact);
    if (strict) return undefined;
    const other = req.headers[otherSpelling(header)];
    if (other === undefined) return undefined;
    note(`accepted the API key header spelled ${otherSpelling(header).toUpperCase()} (strict mode takes only ${header})`);
    return String(other);
  };

  /** Runs an API route: authentication, then the request once, or the remembered answer to it. */
  const callApi = async (req: IncomingMessage, method: string, path: string, authHeaders: Record<string, string>, note: (line: string) => void): Promise<Outcome> => {
    const r = findRoute(method, path);
    const now = clock();
    const auth = authenticate(state, presentedKey(req, note), r.scope, now, header);
    Object.assign(authHeaders, auth.headers);
    const isWrite = method !== "GET";
    const slicer = new TimeSlicer();
    const key = isWrite ? readIdempotencyKey(req.headers[IDEMPOTENCY_HEADER]) : undefined;
    const body = isWrite ? await readJson(req, maxBody, slicer) : {};
    const params = r.pattern.exec(path)?.groups ?? {};
    const decoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeSegment(v)]));
    const changed = noChanges();
    let digest: Promise<string> | undefined;
    const wholeDigest = () => (digest ??= bodyDigestSliced(body, slicer));
    const ctx = { state, now, plan, region, baseUrl, judge: options.judge, params: decoded, body, slicer, strict, note, changed, bodyDigest: wholeDigest };
    const run = () => runHandler(r.handler, ctx, path);
    if (!isWrite) return run();
    const claim = key === undefined ? undefined : await idempotency.claim({ scope: `${auth.key.scope}:${auth.key.id}`, key, method, path, bodyDigest: await wholeDigest(), now });
    if (claim?.kind === "replay") return replayOf(claim.record);
    // Writes run one at a time (each yields the event loop to reads while it works).
    return lock.run(async () => {
      const before = { jobs: state.jobs.length, testRuns: state.testRuns.length, lastAnswer: state.idempotency.at(-1) };
      let outcome: Outcome | undefined;
      try {
        outcome = await run();
      } finally {
        // Remembered before the journal is written: the effect and its answer reach the file together.
        claim?.finish(outcome && { status: outcome.status, body: outcome.text, headers: outcome.headers });
      }
      const remembered = claim !== undefined && isRemembered(outcome.status);
      if (outcome.applied || remembered) await commit(changed, before, slicer);
      if (outcome.applied) {
        version++;
        viewerEvents.publish(version, order.size, changed.traces);
      }
      return outcome;
    });
  };

  const projectKeyValid = (value: string) => {
    const now = clock();
    return state.keys.some((k) => {
      settle(k, now);
      return k.scope === "project" && k.valid && !isExpired(k, now) && (k.value === value || k.shadowValue === value);
    });
  };

  /** The viewer and `/_dev/*`: Host check, then (beyond loopback) the key or the viewer session. */
  const readPage = async (req: IncomingMessage, path: string, query: URLSearchParams, note: (line: string) => void): Promise<Outcome> => {
    checkHost(req.headers.host);
    const login = query.get("login");
    if (path === "/" && login !== null && protectReads) {
      return { status: 302, text: "", headers: { "set-cookie": access.login(login), location: "/", "content-type": "text/plain" }, applied: false };
    }
    if (protectReads) access.check(req.headers.cookie, presentedKey(req, note), projectKeyValid);
    if (path.startsWith("/_dev/view/")) {
      const view = await viewerApi.read(path, query, version);
      return { status: 200, text: JSON.stringify(view.body), headers: view.nextCursor ? { "x-next-cursor": view.nextCursor } : {}, applied: false };
    }
    if (path === "/" || path === "/index.html") return { status: 200, text: viewerHtml, headers: { "content-type": "text/html; charset=utf-8" }, applied: false };
    if (path === "/_dev/version") return jsonOutcome(200, { version, traces: order.size, evictedTraces });
    const slicer = new TimeSlicer();
    const read = await devRead(state, order, path, query, slicer);
    const text = await stringifyJsonSliced(read.body, slicer);
    return { status: 200, text, headers: read.nextCursor ? { "x-next-cursor": read.nextCursor } : {}, applied: false };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // HEAD is answered as GET; Node leaves the body out.
    const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
    let path = (req.url ?? "/").slice(0, 200);
    const authHeaders: Record<string, string> = {};
    const notes = new Set<string>();
    const note = (line: string) => notes.add(line);
    let outcome: Outcome;
    try {
      const url = parseUrl(req.url);
      path = url.path;
      if (path === "/" || path === "/index.html" || path.startsWith("/_dev/")) {
        if (method !== "GET") throw new HttpError(405, `${method} is not allowed on ${path}`, { allow: "GET, HEAD" });
        if (path === "/_dev/events") {
          // The viewer's live updates: a stream that stays open, after the same checks as any read.
          checkHost(req.headers.host);
          if (protectReads) access.check(req.headers.cookie, presentedKey(req, note), projectKeyValid);
          viewerEvents.attach(req, res, { version, traces: order.size });
          log(`GET /_dev/events 200 (live updates; ${viewerEvents.size} open)`);
          return;
        }
        outcome = await readPage(req, path, url.query, note);
      } else {
        outcome = await callApi(req, method, path, authHeaders, note);
      }
    } catch (err) {
      outcome = errorOutcome(err, path);
    }
    if (!res.destroyed) {
      res.writeHead(outcome.status, { ...authHeaders, "content-type": "application/json", ...outcome.headers, "content-length": Buffer.byteLength(outcome.text) });
      res.end(outcome.text);
    }
    // Traces a read brought into memory are let go, unless a write (which may hold some) is running.
    if (loaded && !lock.busy) loaded.traces.trim();
    const replayed = outcome.headers[REPLAYED_HEADER] ? " (idempotent replay)" : "";
    log(`${method} ${path} ${outcome.status} ${(performance.now() - started).toFixed(1)} ms${replayed}`);
    for (const line of notes) log(`  lenient: ${line}`);
  };

  const headersTimeout = positive("headersTimeoutMillis", options.headersTimeoutMillis, 10_000);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(positive("requestTimeoutMillis", options.requestTimeoutMillis, 60_000), headersTimeout),
      // How often Node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, error: `internal error: ${String(err)}` }));
      });
    },
  );
  server.keepAliveTimeout = positive("keepAliveTimeoutMillis", options.keepAliveTimeoutMillis, 5_000);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 4680, bindHost, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;
  for (const w of warnings) log(`WARNING: ${w}`);

  return {
    url: baseUrl,
    projectKey: projectKey.value,
    orgKey: orgKey.value,
    orgKeyId: orgKey.id,
    state,
    strict,
    loginUrl: protectReads && access.pendingLogin ? `${baseUrl}/?login=${access.pendingLogin}` : undefined,
    warnings,
    get evictedTraces() {
      return evictedTraces;
    },
    get tracesInMemory() {
      return loaded ? loaded.traces.heldCount : order.size;
    },
    createApiKey(o) {
      const key = createKey(state, region, clock(), o);
      void lock.run(() => commit(noChanges(), { jobs: state.jobs.length, testRuns: state.testRuns.length, lastAnswer: state.idempotency.at(-1) }, new TimeSlicer()));
      return { id: key.id, value: key.value };
    },
    close: async () => {
      viewerEvents.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await lock.idle();
      loaded?.journal.close(state);
    },
  };
}
