import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Api } from "./api.js";
import type { Judge, Plan } from "./context.js";
import { hostChecker, isLoopback } from "./host-check.js";
import { HttpError } from "./http-error.js";
import { BackgroundJudging, failPending } from "./judging/background.js";
import { judgeEndpoint } from "./judging/setup.js";
import { checkLimits, type IdempotencyLimits, IdempotencyStore, REPLAYED_HEADER } from "./idempotency.js";
import { createKey } from "./keys.js";
import { escapeControls } from "./log-escape.js";
import { errorOutcome, type Outcome } from "./outcome.js";
import { Commits } from "./store/commit.js";
import { Journal } from "./store/journal.js";
import { DEFAULT_HELD_LIMITS } from "./store/lazy-traces.js";
import { emptyState, type KeyRecord, type State } from "./store/store.js";
import { TraceOrder } from "./store/trace-order.js";
import { WriteLock } from "./store/write-lock.js";
import { ViewerApi } from "./viewer/api.js";
import { ViewerEvents } from "./viewer/events.js";
import { SECURITY_HEADERS } from "./viewer/security-headers.js";
import { ViewerSite } from "./viewer/site.js";

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
  /**
   * Scores metrics inside the request (for tests and quick local scoring); without it or
   * `judgeUrl`, evaluations are recorded as NOT_JUDGED. Not with `judgeUrl`.
   */
  judge?: Judge;
  /**
   * An OpenAI-compatible chat completions API (a local model server such as
   * `http://127.0.0.1:11434/v1`, or OpenAI) that judges every custom metric of test runs and
   * online and offline evaluations, G-Eval style (the metric's `criteria` and
   * `evaluationSteps`, the test case's `evaluationParams` fields; a score 0..10 normalised to
   * 0..1 and a reason). It judges in the background: an evaluation is recorded PENDING, then
   * COMPLETED or ERRORED (the judge's error in its message). Default metrics are not judged
   * (their results say so). `EVALTRACE_DEV_JUDGE_URL` when neither this nor `judge` is given.
   */
  judgeUrl?: string;
  /** The model the judge endpoint runs; needed with `judgeUrl` (`EVALTRACE_DEV_JUDGE_MODEL`). */
  judgeModel?: string;
  /** Sent to the judge endpoint as a bearer token (`EVALTRACE_DEV_JUDGE_API_KEY`); local servers need none. */
  judgeApiKey?: string;
  /** Judge calls in flight at once. @default 4 */
  judgeConcurrency?: number;
  /** Time one judge call may take; then the metric's result is an error. @default 60000 */
  judgeTimeoutMillis?: number;
  /**
   * File that keeps the state across restarts: an append-only journal, one JSON line per
   * acknowledged write, fsync'd before the answer, compacted as it grows. The API keys are kept
   * beside it, in `<dataFile>.keys`. A file in the former whole-state format is read and
   * converted. In memory when absent.
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
  /** Receives one line per request (`POST /v1/traces 200 3 ms`); control characters of request data come escaped (`\u001b`). */
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
  /** Where the judge endpoint is (`model at url`), or undefined when there is none. */
  judgeEndpoint: string | undefined;
  /**
   * Resolves when every evaluation that waits for the judge endpoint (PENDING) has its verdict
   * recorded; at once without one.
   */
  judged(): Promise<void>;
  /** Creates another key, e.g. a second organization key or one that expires. */
  createApiKey(options: { scope: "org" | "project"; name?: string; expiresInDays?: number | null }): { id: number; value: string };
  close(): Promise<void>;
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

/** Default bound of traces kept in memory (without `dataFile`). */
export const DEFAULT_MAX_TRACES = 10_000;

/** `EVALTRACE_DEV_STRICT` as a boolean: the environment read once, at the edge. */
function strictFromEnv(): boolean {
  const v = process.env.EVALTRACE_DEV_STRICT;
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
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
  const apiKeyHeader = options.apiKeyHeader ?? "SERVICE_API_KEY";
  const rawLog = options.log ?? (() => {});
  // Request data reaches the log (paths, unknown field names, ids): no raw control characters.
  const log = (line: string) => rawLog(escapeControls(line));
  const limits = checkLimits(options.idempotency, "startDevServer: idempotency");
  const strict = options.strict ?? strictFromEnv();
  const maxTraces = positive("maxTraces", options.maxTraces, options.dataFile ? Number.POSITIVE_INFINITY : DEFAULT_MAX_TRACES);
  const bindHost = options.host ?? "127.0.0.1";
  const protectReads = options.protectReads ?? !isLoopback(bindHost);
  const checkHost = hostChecker(bindHost, options.allowedHosts ?? []);
  const endpoint = judgeEndpoint(options);
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
  const first = (scope: KeyRecord["scope"]) => state.keys.find((k) => k.scope === scope) ?? createKey(state, region, clock(), { scope, name: `dev ${scope} key` });
  const projectKey = first("project");
  const orgKey = first("org");
  const lock = new WriteLock();
  const idempotency = new IdempotencyStore(state.idempotency, limits);
  let baseUrl = "";
  const viewerApi = new ViewerApi(state, order);
  const viewerEvents = new ViewerEvents();
  const commits = new Commits({
    state,
    order,
    maxTraces,
    journal: options.dataFile && loaded ? { file: options.dataFile, loaded } : undefined,
    log,
    onStale: (uuid) => viewerApi.forget(uuid),
    onWrite: (version, traces, changed) => viewerEvents.publish(version, traces, changed),
  });
  await lock.run(() => commits.persist());
  const judging = endpoint && new BackgroundJudging({ state, lock, commits, log, judge: endpoint.judge, label: endpoint.label });
  await failPending({ state, lock, commits, log });
  const api = new Api({
    state,
    clock,
    plan,
    region,
    baseUrl: () => baseUrl,
    judge: options.judge,
    judging,
    strict,
    apiKeyHeader,
    inMemory: !options.dataFile,
    maxBodyBytes: options.maxBodyBytes ?? 32 * 1024 * 1024,
    idempotency,
    lock,
    commits,
  });
  const site = new ViewerSite({
    state,
    order,
    commits,
    clock,
    checkHost,
    protectReads,
    apiKeyHeader,
    strict,
    viewerApi,
    events: viewerEvents,
    log,
  });

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
      if (ViewerSite.serves(path)) {
        const answer = await site.serve(req, res, method, path, url.query, note);
        if (answer === undefined) return; // the live-update stream, open on `res`
        outcome = answer;
      } else {
        outcome = await api.call(req, method, path, authHeaders, note, url.query);
      }
    } catch (err) {
      outcome = errorOutcome(err, path);
    }
    if (!res.destroyed) {
      res.writeHead(outcome.status, { ...SECURITY_HEADERS, ...authHeaders, "content-type": "application/json", ...outcome.headers, "content-length": Buffer.byteLength(outcome.text) });
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
        if (!res.headersSent) res.writeHead(500, { ...SECURITY_HEADERS, "content-type": "application/json" });
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
    loginUrl: site.loginUrl(baseUrl),
    warnings,
    get evictedTraces() {
      return commits.evictedTraces;
    },
    get tracesInMemory() {
      return loaded ? loaded.traces.heldCount : order.size;
    },
    judgeEndpoint: endpoint?.label,
    judged: async () => {
      await judging?.idle();
    },
    createApiKey(o) {
      const key = createKey(state, region, clock(), o);
      void lock.run(() => commits.persist());
      return { id: key.id, value: key.value };
    },
    close: async () => {
      endpoint?.abort.abort();
      await judging?.close();
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
