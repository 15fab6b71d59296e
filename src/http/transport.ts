import { context } from "@opentelemetry/api";
import { suppressTracing } from "../util/otel-core.js";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { describeError } from "../util/describe-error.js";
import { isLoopbackHost } from "../util/loopback.js";
import { nodeSender } from "./node-sender.js";
import { RecoveryGate } from "./recovery.js";
import type { HttpMethod, RawResponse, RequestBody, Sender } from "./sender.js";
import { backoffDelay, isConnectFailure, isRetryableStatus, parseRetryAfter } from "./retry.js";


/** The result of a request after all its attempts: transport outcomes are data, never throws. */
export type TransportOutcome =
  | { ok: true; status: number; body: unknown; headers: Record<string, string>; attempts: number }
  | {
      ok: false;
      /** Absent when no response arrived (network error, timeout). */
      status?: number;
      /** What failed, naming the address tried. */
      message: string;
      body?: unknown;
      attempts: number;
      /** Set when no connection could be made at all (nothing listens at the address, or no such host). */
      unreachable?: true;
    };

/** Options of {@link Transport}. */
export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  apiKeyHeader: string;
  requestTimeoutMillis: number;
  maxRetries: number;
  initialRetryDelayMillis: number;
  maxRetryDelayMillis: number;
  clock: Clock;
  logger: Logger;
  /**
   * Retries when no connection could be made at all (nothing listens, no such host), at most
   * `maxRetries`: a command line gives up on an address that is wrong sooner. @default maxRetries
   */
  maxConnectRetries?: number;
  /** Random source for jitter, in [0, 1). @default Math.random */
  random?: () => number;
  /**
   * Whether the process must stay alive while a request waits to retry: true where every request
   * is awaited by the caller (the REST client); false for background export, whose awaited
   * parts (`flush()`) keep the process alive on their own. @default false
   */
  keepProcessAlive?: boolean;
  /** While requests wait to retry, how often one is sent early to learn that the service is back. @default 1000 */
  probeIntervalMillis?: number;
  /** Called before each retry with the wait chosen, e.g. to count retries. */
  onRetry?: (info: { path: string; attempt: number; delayMillis: number; reason: string }) => void;
}

export type { RequestBody } from "./sender.js";

/** Per-request choices of {@link Transport.send}. */
export interface SendOptions {
  /** The `Idempotency-Key` to send (a spooled batch's replay sends the key it was first sent with). @default a new UUID */
  idempotencyKey?: string;
  /** Retries of this request, instead of the transport's `maxRetries`. */
  maxRetries?: number;
}

/**
 * One HTTP client for everything the SDK sends: auth header, timeouts, retries with backoff and
 * `Retry-After`, the key-rotation warning headers, and tracing suppressed so that our own
 * requests never show up as spans. Uses Node's `http` on Node and `fetch` elsewhere.
 */
export class Transport {
  private readonly options: TransportOptions;
  private sender: Promise<Sender> | undefined;
  private closeSender: (() => Promise<void>) | undefined;
  private warnedHeaders = false;
  private closed = false;
  private readonly recovery: RecoveryGate;
  /** Nothing has answered yet, and the last attempt could not connect: why (else undefined). */
  private neverReached: string | undefined;
  private answeredOnce = false;
  private attemptsInFlight = 0;
  private readonly neverReachedWaiters = new Set<(reason: string) => void>();

  constructor(options: TransportOptions) {
    this.options = options;
    this.recovery = new RecoveryGate(options.clock, options.probeIntervalMillis ?? PROBE_INTERVAL_MILLIS);
  }

  /**
   * Sends one request, retrying what is worth retrying, and never throws. Every attempt of one
   * call carries the same `Idempotency-Key`, so a retry of a write that did arrive (its answer
   * was lost) is not applied twice by a service that honours the header.
   */
  async send(method: HttpMethod, path: string, body?: RequestBody, _apiKey?: string, options?: SendOptions): Promise<TransportOutcome> {
    const o = this.options;
    const random = o.random ?? Math.random;
    const keepAlive = o.keepProcessAlive === true;
    const maxRetries = options?.maxRetries ?? o.maxRetries;
    const idempotencyKey = method === "GET" ? undefined : (options?.idempotencyKey ?? newIdempotencyKey());
    let attempts = 0;
    let retries = 0;
    let probe = false;
    let dueAt = 0;
    let asked = false;
    let early = false;
    for (;;) {
      let failure: TransportOutcome & { ok: false };
      if (this.closed) return { ok: false, message: `request to ${path} not sent: the SDK was shut down`, attempts };
      attempts++;
      let delay: number | undefined;
      let reason: string;
      let connectFailed = false;
      this.attemptsInFlight++;
      try {
        const res = await this.attempt(method, path, body, idempotencyKey);
        this.reached();
        this.checkWarningHeaders(res.headers);
        const parsed = parseBody(res.text);
        if (res.status >= 200 && res.status < 300) {
          this.recovery.answered();
          return { ok: true, status: res.status, body: parsed, headers: res.headers, attempts };
        }
        reason = `HTTP ${res.status}`;
        failure = { ok: false, status: res.status, message: `${o.baseUrl}${path} answered ${errorMessage(res.status, parsed)}`, body: parsed, attempts };
        if (!isRetryableStatus(res.status)) {
          this.recovery.answered();
          return failure;
        }
        const retryAfter = parseRetryAfter(res.headers["retry-after"], o.clock.now());
        if (retryAfter !== undefined) delay = Math.min(retryAfter, o.maxRetryDelayMillis);
        // The service asked to slow down: no early retries.
        asked = retryAfter !== undefined || res.status === 429;
      } catch (err) {
        reason = describeError(err);
        connectFailed = isConnectFailure(err);
        const hint = connectFailed && !this.answeredOnce ? `; nothing answers there: ${nothingAnswersFix(o.baseUrl)}` : "";
        failure = { ok: false, message: `request to ${o.baseUrl}${path} failed: ${reason}${hint}`, attempts, ...(connectFailed ? { unreachable: true as const } : {}) };
        asked = false;
        if (connectFailed && !this.answeredOnce) this.neverReached = reason;
      } finally {
        this.attemptsInFlight--;
        if (probe) this.recovery.probeDone();
      }
      if (connectFailed && this.neverReached !== undefined) this.tellNeverReached();
      if (this.closed) return { ...failure, message: `${failure.message} (not retried: the SDK was shut down)` };
      if (early) {
        // A failed early attempt (a probe, or woken by another request's answer) costs no retry:
        // back to the rest of the wait, later if the service asked for more.
        if (delay !== undefined) dueAt = Math.max(dueAt, o.clock.now() + delay);
      } else {
        retries++;
        if (retries > (connectFailed ? Math.min(maxRetries, o.maxConnectRetries ?? maxRetries) : maxRetries)) return failure;
        delay ??= backoffDelay(retries - 1, o.initialRetryDelayMillis, o.maxRetryDelayMillis, random);
        dueAt = o.clock.now() + delay;
        o.onRetry?.({ path, attempt: attempts, delayMillis: delay, reason });
        o.logger.debug(`retrying ${method} ${path} in ${delay} ms after ${reason} (attempt ${attempts})`);
      }
      const woke = await this.recovery.wait(Math.max(0, dueAt - o.clock.now()), keepAlive, !asked, o.clock.now());
      if (woke === "closed") return { ...failure, message: `${failure.message} (not retried: the SDK was shut down)` };
      probe = woke === "probe";
      early = woke === "probe" || woke === "recovered";
    }
  }

  /**
   * Resolves with the reason once nothing has ever answered at the base URL and a connection
   * could not be made (nothing listens, no such host): at once when that is the state now and
   * no attempt is under way, else at the next such failure. A flush need not wait out retries
   * that cannot succeed soon; they go on in the background. Never resolves once anything
   * answered. `cancel` lets go of the wait.
   */
  whenNeverReached(): { promise: Promise<string>; cancel: () => void } {
    let waiter: ((reason: string) => void) | undefined;
    const promise = new Promise<string>((resolve) => {
      if (this.neverReached !== undefined && this.attemptsInFlight === 0) return resolve(this.neverReached);
      waiter = resolve;
      this.neverReachedWaiters.add(resolve);
    });
    return { promise, cancel: () => waiter && this.neverReachedWaiters.delete(waiter) };
  }

  /** Why nothing answers at the base URL, while nothing ever did and the last attempt could not connect. */
  get nothingAnswers(): string | undefined {
    return this.neverReached;
  }

  private reached(): void {
    this.answeredOnce = true;
    this.neverReached = undefined;
    this.neverReachedWaiters.clear();
  }

  private tellNeverReached(): void {
    const reason = this.neverReached;
    if (reason === undefined) return;
    const waiters = [...this.neverReachedWaiters];
    this.neverReachedWaiters.clear();
    for (const w of waiters) w(reason);
  }

  /**
   * Loads the HTTP client soon (no connection is opened), so the first send is not slowed by it:
   * on a timer, not now, so that loading it (some 5 ms) is not part of the app's own start when
   * the SDK is configured at start-up.
   */
  warm(): void {
    if (this.sender !== undefined) return;
    const timer = setTimeout(() => {
      if (!this.closed) this.sender ??= this.createSender();
    }, 0) as { unref?: () => void };
    timer.unref?.();
  }

  /**
   * Closes pooled connections, aborting requests still in flight; from now on nothing is sent
   * or retried (every send fails at once), so no work outlives a shutdown.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.recovery.close();
    try {
      await this.closeSender?.();
    } catch {
      // Closing is best effort; it must never throw into the app's shutdown.
    }
  }

  /** True once closed. */
  get isClosed(): boolean {
    return this.closed;
  }

  private async attempt(method: HttpMethod, path: string, body: RequestBody | undefined, idempotencyKey: string | undefined): Promise<RawResponse> {
    const o = this.options;
    this.sender ??= this.createSender();
    const send = await this.sender;
    const headers: Record<string, string> = { accept: "application/json", "user-agent": "evaltrace-js" };
    if (o.apiKey) headers[o.apiKeyHeader] = o.apiKey;
    if (body !== undefined) headers["content-type"] = "application/json";
    if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
    // Our own HTTP calls must never become spans, in our provider or in the app's.
    return context.with(suppressTracing(context.active()), () =>
      send(`${o.baseUrl}${path}`, { method, headers, body, timeoutMillis: o.requestTimeoutMillis }),
    );
  }

  private async createSender(): Promise<Sender> {
    const versions = (globalThis as { process?: { versions?: { node?: string; bun?: string } } }).process?.versions;
    // Node: its own http modules, pooled (node-sender.ts). Elsewhere (Bun, Deno, workerd), the
    // runtime's own fetch: their `node:http` modules are stand-ins of their own.
    const isNode = typeof versions?.node === "string" && versions.bun === undefined && !("Deno" in globalThis);
    if (isNode) {
      try {
        const { send, close } = await nodeSender(this.options.baseUrl);
        this.closeSender = async () => close();
        return send;
      } catch {
        // Fall through to fetch.
      }
    }
    return fetchSender;
  }

  private checkWarningHeaders(headers: Record<string, string>): void {
    if (this.warnedHeaders) return;
    const warning = headers["x-api-key-warning"];
    const sunset = headers.sunset;
    if (warning === undefined && sunset === undefined) return;
    this.warnedHeaders = true;
    this.options.logger.warn(
      `the service says this API key is being replaced${sunset ? ` and stops working at ${sunset}` : ""}` +
        `${warning ? `: ${warning}` : ""}. Switch to the new key value.`,
    );
  }
}

/** While the service is unreachable, one early retry at most this often. */
const PROBE_INTERVAL_MILLIS = 1000;

/** A random UUID: one per logical request, the same on each of its attempts. */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const hex = () => Math.floor(Math.random() * 0x10000).toString(16).padStart(4, "0");
  return `${hex()}${hex()}-${hex()}-4${hex().slice(1)}-${hex()}-${hex()}${hex()}${hex()}`;
}

const fetchSender: Sender = async (url, init) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), init.timeoutMillis);
  try {
    const res = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal: controller.signal });
    const text = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      headers[k.toLowerCase()] = v;
    });
    return { status: res.status, headers, text };
  } catch (err) {
    if (controller.signal.aborted) throw new Error(`no response within ${init.timeoutMillis} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
};

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 2000);
  }
}

/** The service's error message, whichever schema it used (`error` or the older `message`). */
export function errorMessage(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as { error?: unknown; message?: unknown };
    const msg = typeof b.error === "string" ? b.error : typeof b.message === "string" ? b.message : undefined;
    if (msg) return `HTTP ${status}: ${msg}`;
  }
  if (typeof body === "string" && body) return `HTTP ${status}: ${body.slice(0, 200)}`;
  return `HTTP ${status}`;
}

/** What to do when nothing answers at `baseUrl`: start the emulator there, or fix the address. */
export function nothingAnswersFix(baseUrl: string): string {
  let local = false;
  try {
    local = isLoopbackHost(new URL(baseUrl).hostname);
  } catch {
    // An address that does not parse: the generic fix.
  }
  return local
    ? `start the emulator (npx evaltrace dev), or set EVALTRACE_BASE_URL to the service's address`
    : "check EVALTRACE_BASE_URL (or configure({ baseUrl })) and the network";
}
