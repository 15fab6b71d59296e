import { type Clock, systemClock } from "../clock.js";
import { type Env, type ENV_VARS, type EnvValue, processEnv, readEnv, warnDeprecatedEnv } from "./env-vars.js";
import { consoleLogger, type Logger, type LogLevel } from "../logger.js";
import { defaultSerializeLimits, type SerializeLimits } from "../spans/serialize.js";
import { ENVIRONMENTS } from "../spans/validate-fields.js";
import { processWide } from "../process-wide.js";
import { baseUrlFix, versionSuffix, versionSuffixWarning } from "./base-url.js";
import { describeValue } from "../util/describe-value.js";

/** Where `evaltrace dev` listens by default, and so where the SDK sends when nothing else is set. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:4680";

/** How finished traces are grouped into requests. */
export interface BatchOptions {
  /** Most spans in one `POST /v1/traces` request (a single larger trace still goes alone). @default 1000 */
  maxSpansPerRequest?: number;
  /** Most bytes of JSON in one request (a single larger trace still goes alone). @default 4194304 (4 MiB) */
  maxRequestBytes?: number;
  /**
   * How long a partial batch waits before it is sent, in milliseconds. Once
   * `maxSpansPerRequest` spans are waiting, they go at once, from the span end that made them
   * that many, when a request slot is free. @default 1000
   */
  flushIntervalMillis?: number;
  /** Most finished traces waiting to be sent; beyond it new traces are dropped and counted. @default 10000 */
  maxQueuedTraces?: number;
  /** Requests in flight at once. @default 2 */
  concurrency?: number;
}

/** The durable local spool: batches the service cannot take now wait on disk (docs/spool.md). */
export interface SpoolOptions {
  /** Directory of the spool's segment files (made if missing). @default process.env.EVALTRACE_SPOOL_DIR */
  dir: string;
  /** Most bytes of segments this process keeps; past it the oldest are dropped and counted. @default process.env.EVALTRACE_SPOOL_MAX_BYTES, else 268435456 (256 MiB) */
  maxBytes?: number;
  /**
   * When writes are forced to the device (a killed process loses nothing either way; this is
   * about the machine crashing): `"none"`, `"rotate"` (each segment as it is closed), `"always"`
   * (each batch). @default "rotate"
   */
  fsync?: "none" | "rotate" | "always";
  /**
   * Write-ahead: every batch is written to the spool before it is sent and deleted once the
   * service answered, so that a process killed at any moment (SIGKILL, the OOM killer) loses
   * nothing that ended more than a batch interval earlier, the service up or down. Off: batches
   * go to disk only once the service failed to take one (docs/spool.md, the two modes).
   * @default process.env.EVALTRACE_SPOOL_WRITE_AHEAD === "true" (or "1"), else false
   */
  writeAhead?: boolean;
}

/** Options of {@link configure}. Every field is optional; environment variables fill the gaps. */
export interface EvaltraceOptions {
  /** Project API key. @default process.env.EVALTRACE_API_KEY */
  apiKey?: string;
  /** Service address. @default process.env.EVALTRACE_BASE_URL, else "http://127.0.0.1:4680" (the local emulator) */
  baseUrl?: string;
  /**
   * Environment recorded on every trace: `production`, `development`, `staging` or `testing` (the
   * live service takes no other; keep a custom label in metadata or tags).
   * @default process.env.EVALTRACE_ENVIRONMENT, else "development"
   */
  environment?: string;
  /** Fraction of traces kept, 0..1; a trace is kept or dropped whole. @default process.env.EVALTRACE_SAMPLE_RATE, else 1 */
  sampleRate?: number;
  /** Turns tracing off entirely (wrapped functions run untouched). @default process.env.EVALTRACE_TRACING_ENABLED !== "false" */
  enabled?: boolean;
  /** Record the arguments of wrapped functions as span input. @default true */
  captureInputs?: boolean;
  /** Record the return values of wrapped functions as span output. @default true */
  captureOutputs?: boolean;
  /**
   * Applied to every captured input, output and metadata value before it is stored. If it throws,
   * the value is dropped (never sent unmasked) and the failure is logged.
   */
  mask?: (value: unknown) => unknown;
  /** Batching of the exporter. */
  batch?: BatchOptions;
  /** Receives the SDK's messages. @default a console logger at `logLevel` */
  logger?: Logger;
  /** Level of the default console logger. @default "warn" */
  logLevel?: LogLevel;
  /** Name of the authentication header (spec 5). @default "SERVICE_API_KEY" */
  apiKeyHeader?: string;
  /** Timeout of one HTTP attempt, in milliseconds. @default 10000 */
  requestTimeoutMillis?: number;
  /** Retries after the first attempt, on network errors, 408, 429 and 5xx. @default 5 */
  maxRetries?: number;
  /** First retry delay before jitter, in milliseconds; doubles per retry. @default 500 */
  initialRetryDelayMillis?: number;
  /** Longest wait between attempts, `Retry-After` included, in milliseconds. @default 30000 */
  maxRetryDelayMillis?: number;
  /** Longest wait of `flush()` when it is given no timeout, in milliseconds. @default 30000 */
  flushTimeoutMillis?: number;
  /** Longest wait of `shutdown()` and of the exit hooks, in milliseconds. @default 5000 */
  shutdownTimeoutMillis?: number;
  /** Most traces with spans still open at once; beyond it new traces are not recorded and are counted. @default 10000 */
  maxOpenTraces?: number;
  /**
   * Most spans kept per trace; later ones are dropped and counted, the trace's root and every
   * ancestor of a kept span are always kept, and the trace is marked in its metadata
   * (`evaltrace.truncated`, `evaltrace.droppedSpans`). @default 10000
   */
  maxSpansPerTrace?: number;
  /**
   * Longest a trace is held waiting for its spans to end, in milliseconds. Past it (checked at
   * least every quarter of it) the trace is sent with its still-open spans closed at that time
   * and marked (`evaltrace.unfinished` on the span, `evaltrace.unfinishedSpans` on the trace);
   * those spans ending later are ignored and counted. A stream never consumed or a span never
   * ended can so never hold a trace, or the `maxOpenTraces` budget, for good. @default 300000 (5 min)
   */
  maxTraceDurationMillis?: number;
  /** Bounds on each captured value. */
  serializeLimits?: Partial<SerializeLimits>;
  /** Flush on `beforeExit`, SIGTERM and SIGINT. @default true */
  registerExitHooks?: boolean;
  /**
   * How `observe()` spans share the OpenTelemetry context with other instrumentations.
   * `"shared"`: an observed span is the active OTel span, so what any instrumentation records
   * inside it (LLM calls, and HTTP or DB calls too) is its descendant, and `observe()` inside a
   * span the `EvaltraceSpanProcessor` tracks joins that trace: one trace across everything. An
   * app's other OTel backend then receives spans whose parent (ours) it never gets.
   * `"separate"`: observed spans are invisible to other instrumentations; the app's backend never
   * gets a parent it cannot see, and their spans form traces of their own. @default "shared"
   */
  otelContext?: "shared" | "separate";
  /** Time source for batch intervals, retry delays and timeouts; inject a fake one in tests. */
  clock?: Clock;
  /** A durable local spool for what the service cannot take now; `false` turns off one EVALTRACE_SPOOL_DIR asks for. @default none, unless EVALTRACE_SPOOL_DIR is set */
  spool?: SpoolOptions | false;
}

/** Options after environment fallbacks and defaults: every field set. */
export interface ResolvedOptions {
  apiKey: string | undefined;
  baseUrl: string;
  environment: string;
  sampleRate: number;
  enabled: boolean;
  captureInputs: boolean;
  captureOutputs: boolean;
  mask: ((value: unknown) => unknown) | undefined;
  batch: Required<BatchOptions>;
  logger: Logger;
  apiKeyHeader: string;
  requestTimeoutMillis: number;
  maxRetries: number;
  initialRetryDelayMillis: number;
  maxRetryDelayMillis: number;
  flushTimeoutMillis: number;
  shutdownTimeoutMillis: number;
  maxOpenTraces: number;
  maxSpansPerTrace: number;
  maxTraceDurationMillis: number;
  serializeLimits: SerializeLimits;
  registerExitHooks: boolean;
  otelContext: "shared" | "separate";
  clock: Clock;
  /** The spool's settings, undefined without one. */
  spool: Required<SpoolOptions> | undefined;
  /** Environment variables that were set but unusable, one line each; logged once by the runtime. */
  envProblems: string[];
  /** The base URL variable that was set but is not an http(s) URL (tracing is off for it). */
  unusableBaseUrl?: { variable: string; value: string };
}

export { processEnv };

/** Warns once per process and address about a base URL ending in `/v1` (docs/configuration.md). */
function warnVersionSuffix(baseUrl: string, logger: Logger): void {
  const without = versionSuffix(baseUrl);
  if (without === undefined) return;
  const warned = processWide("versionSuffixWarned", () => new Set<string>());
  if (warned.has(baseUrl)) return;
  warned.add(baseUrl);
  try {
    logger.warn(versionSuffixWarning(baseUrl, without));
  } catch {
    // A broken logger must not break the app.
  }
}

function fail(option: string, value: unknown, expected: string): never {
  throw new TypeError(`evaltrace: option \`${option}\` must be ${expected}; got ${describeValue(value)}`);
}


const optionKeys: readonly (keyof EvaltraceOptions)[] = [
  "apiKey",
  "baseUrl",
  "environment",
  "sampleRate",
  "enabled",
  "captureInputs",
  "captureOutputs",
  "mask",
  "batch",
  "logger",
  "logLevel",
  "apiKeyHeader",
  "requestTimeoutMillis",
  "maxRetries",
  "initialRetryDelayMillis",
  "maxRetryDelayMillis",
  "flushTimeoutMillis",
  "shutdownTimeoutMillis",
  "maxOpenTraces",
  "maxSpansPerTrace",
  "maxTraceDurationMillis",
  "serializeLimits",
  "registerExitHooks",
  "otelContext",
  "clock",
  "spool",
];
const batchKeys: readonly (keyof BatchOptions)[] = ["maxSpansPerRequest", "maxRequestBytes", "flushIntervalMillis", "maxQueuedTraces", "concurrency"];
const limitKeys = Object.keys(defaultSerializeLimits) as (keyof SerializeLimits)[];
const logLevels: readonly LogLevel[] = ["debug", "info", "warn", "error", "silent"];

/** Rejects keys that are not options (a typo like `apikey` would otherwise be ignored). */
function checkKeys(where: string, value: object, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
    throw new TypeError(
      `evaltrace: unknown option \`${where}${key}\`${near ? `; did you mean \`${where}${near}\`?` : ""} (known: ${known.join(", ")})`,
    );
  }
}

function object<T extends object>(option: string, value: T | undefined, known: readonly string[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(option, value, "an object");
  checkKeys(`${option}.`, value, known);
  return value;
}

/** Longest delay a timer can take (Node fires longer ones at once). */
const MAX_TIMER_MILLIS = 2_147_483_647;

function int(option: string, value: number | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    fail(option, value, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`);
  }
  return value;
}

function oneOf<T extends string>(option: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) fail(option, value, `one of ${allowed.join(", ")}`);
  return value;
}

/** A duration in milliseconds: an integer a timer can wait. */
function millis(option: string, value: number | undefined, fallback: number, min: number): number {
  return int(option, value, fallback, min, MAX_TIMER_MILLIS);
}

function bool(option: string, value: boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") fail(option, value, "a boolean");
  return value;
}

function str(option: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0) fail(option, value, "a non-empty string");
  return value;
}

/**
 * The trace environment: one of the four the live service takes. A wrong option is a TypeError;
 * a wrong EVALTRACE_ENVIRONMENT a warning (and "development").
 */
function resolveEnvironment(option: string | undefined, fromEnv: EnvValue, badEnv: (read: EnvValue, expected: string, then: string) => void): string {
  const expected = `one of ${ENVIRONMENTS.join(", ")} (keep a custom label in metadata or tags)`;
  if (option !== undefined) {
    if (!ENVIRONMENTS.includes(option)) fail("environment", option, expected);
    return option;
  }
  if (!fromEnv.value) return "development";
  if (ENVIRONMENTS.includes(fromEnv.value.trim().toLowerCase())) return fromEnv.value.trim().toLowerCase();
  badEnv(fromEnv, expected, 'traces say "development"');
  return "development";
}

function resolveLimits(limits: Partial<SerializeLimits>): SerializeLimits {
  const out = { ...defaultSerializeLimits };
  for (const key of limitKeys) out[key] = int(`serializeLimits.${key}`, limits[key], defaultSerializeLimits[key], 1);
  return out;
}

/** Whether `value` parses as an http: or https: URL (a base URL the SDK, the CLI and the doctor accept). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Applies environment fallbacks and defaults once and validates every option.
 * @throws TypeError naming the option, the value and what was expected.
 */
export function resolveOptions(options: EvaltraceOptions = {}, env: Env = processEnv()): ResolvedOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options)) fail("options", options, "an object");
  checkKeys("", options, optionKeys);
  const envProblems: string[] = [];
  const badEnv = (read: EnvValue, expected: string, then: string) =>
    envProblems.push(`environment variable ${read.name}=${describeValue(read.value)} is not ${expected}; ${then}`);
  // Each variable is read (and a deprecated name noted) only where no option overrides it.
  const envRead: EnvValue[] = [];
  const fromEnv = (option: keyof typeof ENV_VARS): EnvValue => {
    const read = readEnv(env, option);
    envRead.push(read);
    return read;
  };
  if (options.apiKey !== undefined && typeof options.apiKey !== "string") fail("apiKey", "(hidden)", "a string");
  // An empty key (an env var set but empty) means no key: tracing stays off, the app untouched.
  const apiKey = options.apiKey || fromEnv("apiKey").value || undefined;
  let enabledFromEnv = true;
  const enabledRead = options.enabled === undefined ? fromEnv("enabled") : undefined;
  const enabledVar = enabledRead?.value?.trim().toLowerCase();
  if (enabledVar === "false" || enabledVar === "0" || enabledVar === "no" || enabledVar === "off") enabledFromEnv = false;
  else if (enabledRead && enabledVar && !["true", "1", "yes", "on"].includes(enabledVar)) badEnv(enabledRead, "true or false", "tracing stays on");
  let baseUrl = str("baseUrl", options.baseUrl);
  let unusableBaseUrl: ResolvedOptions["unusableBaseUrl"];
  if (baseUrl !== undefined) {
    if (!isHttpUrl(baseUrl)) fail("baseUrl", baseUrl, "an http(s) URL");
  } else {
    const baseRead = fromEnv("baseUrl");
    if (baseRead.value && isHttpUrl(baseRead.value)) baseUrl = baseRead.value;
    else if (baseRead.value) {
      // Sending to another address than the one meant would be worse than not sending.
      badEnv(baseRead, "an http(s) URL", `tracing is off until it is fixed or configure({ baseUrl }) is called: ${baseUrlFix(baseRead.name, baseRead.value)}`);
      unusableBaseUrl = { variable: baseRead.name, value: baseRead.value };
      enabledFromEnv = false;
    }
  }
  baseUrl = (baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  let sampleRate = options.sampleRate;
  const rateRead = sampleRate === undefined ? fromEnv("sampleRate") : undefined;
  if (rateRead?.value) {
    const rate = Number(rateRead.value);
    if (rateRead.value.trim() !== "" && rate >= 0 && rate <= 1) sampleRate = rate;
    else badEnv(rateRead, "a number from 0 to 1", "every trace is kept");
  }
  if (sampleRate === undefined) sampleRate = 1;
  if (typeof sampleRate !== "number" || !(sampleRate >= 0 && sampleRate <= 1)) {
    fail("sampleRate", sampleRate, "a number from 0 to 1");
  }
  if (options.mask !== undefined && typeof options.mask !== "function") fail("mask", options.mask, "a function");
  if (options.logLevel !== undefined && !logLevels.includes(options.logLevel)) {
    fail("logLevel", options.logLevel, `one of ${logLevels.join(", ")}`);
  }
  if (options.logger !== undefined && (typeof options.logger !== "object" || options.logger === null)) fail("logger", options.logger, "an object");
  if (options.clock !== undefined) {
    const c = options.clock as Partial<Clock> | null;
    if (typeof c !== "object" || c === null || typeof c.now !== "function" || typeof c.setTimeout !== "function" || typeof c.clearTimeout !== "function") {
      fail("clock", options.clock, "an object with now, setTimeout and clearTimeout");
    }
  }
  const logger = options.logger ?? consoleLogger(options.logLevel ?? "warn");
  for (const method of ["debug", "info", "warn", "error"] as const) {
    if (typeof logger[method] !== "function") fail(`logger.${method}`, logger[method], "a function");
  }
  const environment = resolveEnvironment(options.environment, options.environment === undefined ? fromEnv("environment") : { value: undefined, name: "" }, badEnv);
  warnDeprecatedEnv(envRead, logger);
  warnVersionSuffix(baseUrl, logger);
  const batch = object("batch", options.batch, batchKeys) ?? {};
  const limits = object("serializeLimits", options.serializeLimits, limitKeys) ?? {};
  const maxRetryDelayMillis = millis("maxRetryDelayMillis", options.maxRetryDelayMillis, 30_000, 0);
  return {
    apiKey,
    baseUrl,
    environment,
    sampleRate,
    enabled: bool("enabled", options.enabled, enabledFromEnv),
    captureInputs: bool("captureInputs", options.captureInputs, true),
    captureOutputs: bool("captureOutputs", options.captureOutputs, true),
    mask: options.mask,
    batch: {
      maxSpansPerRequest: int("batch.maxSpansPerRequest", batch.maxSpansPerRequest, 1000, 1),
      maxRequestBytes: int("batch.maxRequestBytes", batch.maxRequestBytes, 4 * 1024 * 1024, 1024),
      flushIntervalMillis: millis("batch.flushIntervalMillis", batch.flushIntervalMillis, 1000, 0),
      maxQueuedTraces: int("batch.maxQueuedTraces", batch.maxQueuedTraces, 10_000, 1),
      concurrency: int("batch.concurrency", batch.concurrency, 2, 1),
    },
    logger,
    apiKeyHeader: str("apiKeyHeader", options.apiKeyHeader) ?? "SERVICE_API_KEY",
    requestTimeoutMillis: millis("requestTimeoutMillis", options.requestTimeoutMillis, 10_000, 1),
    maxRetries: int("maxRetries", options.maxRetries, 5, 0),
    initialRetryDelayMillis: millis("initialRetryDelayMillis", options.initialRetryDelayMillis, 500, 0),
    maxRetryDelayMillis,
    flushTimeoutMillis: millis("flushTimeoutMillis", options.flushTimeoutMillis, 30_000, 0),
    shutdownTimeoutMillis: millis("shutdownTimeoutMillis", options.shutdownTimeoutMillis, 5_000, 0),
    maxOpenTraces: int("maxOpenTraces", options.maxOpenTraces, 10_000, 1),
    maxSpansPerTrace: int("maxSpansPerTrace", options.maxSpansPerTrace, 10_000, 1),
    maxTraceDurationMillis: millis("maxTraceDurationMillis", options.maxTraceDurationMillis, 300_000, 1),
    serializeLimits: resolveLimits(limits),
    registerExitHooks: bool("registerExitHooks", options.registerExitHooks, true),
    otelContext: oneOf("otelContext", options.otelContext, ["shared", "separate"] as const, "shared"),
    clock: options.clock ?? systemClock,
    spool: resolveSpool(options.spool, env, badEnv),
    envProblems,
    ...(unusableBaseUrl ? { unusableBaseUrl } : {}),
  };
}

/** The spool's default `maxBytes`: 256 MiB. */
export const DEFAULT_SPOOL_MAX_BYTES = 256 * 1024 * 1024;

/** The spool's settings from the option, else EVALTRACE_SPOOL_DIR / EVALTRACE_SPOOL_MAX_BYTES / EVALTRACE_SPOOL_WRITE_AHEAD. */
function resolveSpool(option: SpoolOptions | false | undefined, env: Env, badEnv: (read: EnvValue, expected: string, then: string) => void): Required<SpoolOptions> | undefined {
  if (option === false) return undefined;
  let maxBytes = DEFAULT_SPOOL_MAX_BYTES;
  const envMax = env.EVALTRACE_SPOOL_MAX_BYTES?.trim();
  if (envMax) {
    if (/^\d+$/.test(envMax) && Number(envMax) >= 65_536) maxBytes = Number(envMax);
    else badEnv({ value: envMax, name: "EVALTRACE_SPOOL_MAX_BYTES" }, "an integer >= 65536", `the spool keeps at most ${DEFAULT_SPOOL_MAX_BYTES} bytes`);
  }
  let writeAhead = false;
  const envAhead = env.EVALTRACE_SPOOL_WRITE_AHEAD?.trim().toLowerCase();
  if (envAhead) {
    if (envAhead === "true" || envAhead === "1") writeAhead = true;
    else if (envAhead !== "false" && envAhead !== "0") badEnv({ value: envAhead, name: "EVALTRACE_SPOOL_WRITE_AHEAD" }, "true or false", "the spool does not write ahead");
  }
  if (option === undefined) return env.EVALTRACE_SPOOL_DIR ? { dir: env.EVALTRACE_SPOOL_DIR, maxBytes, fsync: "rotate", writeAhead } : undefined;
  object("spool", option, ["dir", "maxBytes", "fsync", "writeAhead"]);
  return {
    dir: str("spool.dir", option.dir) ?? fail("spool.dir", option.dir, "a directory path"),
    maxBytes: int("spool.maxBytes", option.maxBytes, maxBytes, 65_536),
    fsync: oneOf("spool.fsync", option.fsync, ["none", "rotate", "always"] as const, "rotate"),
    writeAhead: bool("spool.writeAhead", option.writeAhead, writeAhead),
  };
}
