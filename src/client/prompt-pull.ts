import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { HttpMethod } from "../http/sender.js";
import { INTERPOLATION_TYPES, type InterpolationType } from "../prompts/interpolate.js";
import { makePrompt, type Prompt, type PromptFields } from "../prompts/prompt.js";
import { PromptCache, type PromptCacheOptions, type PromptCacheStats } from "../prompts/prompt-cache.js";
import type { PromptMessage } from "../protocol/types.js";
import { ServiceError, ValidationError } from "./errors.js";

/**
 * Which commit of a prompt to pull: one of `version`, `label`, `hash` or `branch` (the newest
 * commit of that branch), or none for the newest commit of `main`.
 */
export type PromptSelector = { version: string } | { label: string } | { hash: string } | { branch: string } | Record<never, never>;

/** Options of `client.prompts.pull()`: a {@link PromptSelector} and the cache's TTL for this call. */
export type PromptPullOptions = PromptSelector & {
  /** Overrides the client's `promptCache.ttlMillis` for this pull. */
  cacheTtlMillis?: number;
};

const SELECTORS = ["version", "label", "hash", "branch"] as const;
type SelectorKind = (typeof SELECTORS)[number];

/**
 * The read path of each selector, as the vendor's SDKs call the service (deepeval
 * `confident/api.py` Endpoints and `typescript/src/confident/api.ts`): a version and a label have
 * their own paths; a hash, a branch's newest commit and the newest commit of `main` are all
 * `commits/:hash` (`latest` for the newest), with `?branch=` naming the branch.
 */
const READ_PATHS: Readonly<Record<SelectorKind | "latest", (alias: string, value: string) => string>> = {
  version: (a, v) => `/v1/prompts/${enc(a)}/versions/${enc(v)}`,
  label: (a, v) => `/v1/prompts/${enc(a)}/labels/${enc(v)}`,
  hash: (a, v) => `/v1/prompts/${enc(a)}/commits/${enc(v)}`,
  branch: (a, v) => `/v1/prompts/${enc(a)}/commits/latest?branch=${enc(v)}`,
  latest: (a) => `/v1/prompts/${enc(a)}/commits/latest`,
};

const enc = encodeURIComponent;

/** The client's way to the service, as the pull needs it. */
export interface PromptHttp {
  /** `inBackground`: a request nobody awaits, sent once and never holding the process open. */
  call(method: HttpMethod, path: string, body: undefined, check: undefined, inBackground: boolean): Promise<Record<string, unknown> & { data?: Record<string, unknown> }>;
}

/** The selector of a pull, checked: at most one, a non-empty string. */
function selectorOf(options: unknown): { kind: SelectorKind | "latest"; value: string; ttl: number | undefined } {
  if (options === undefined) return { kind: "latest", value: "latest", ttl: undefined };
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new ValidationError(`options: expected an object like { label: "production" }; got ${describe(options)}`);
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (![...SELECTORS, "cacheTtlMillis"].includes(key)) throw new ValidationError(`options.${key}: not an option of prompts.pull(); use one of version, label, hash or branch, and cacheTtlMillis`);
  }
  const given = SELECTORS.filter((k) => o[k] !== undefined);
  if (given.length > 1) throw new ValidationError(`options: give one of version, label, hash or branch, not ${given.join(" and ")}`);
  const ttl = o.cacheTtlMillis;
  if (ttl !== undefined && (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl < 0)) throw new ValidationError(`options.cacheTtlMillis: expected a number of milliseconds >= 0; got ${describe(ttl)}`);
  const kind = given[0];
  if (kind === undefined) return { kind: "latest", value: "latest", ttl };
  const value = o[kind];
  if (typeof value !== "string" || value.trim() === "") throw new ValidationError(`options.${kind}: expected a non-empty string; got ${describe(value)}`);
  return { kind, value, ttl };
}

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "an array";
  return v === null ? "null" : typeof v === "object" ? "an object" : String(v);
}

/** Defaults of the cache. */
const DEFAULT_TTL_MILLIS = 60_000;
const DEFAULT_MAX_ENTRIES = 500;

/** Checks the client's `promptCache` option. */
export function checkCacheOptions(o: PromptCacheOptions | undefined): Required<PromptCacheOptions> {
  if (o !== undefined && (typeof o !== "object" || o === null)) throw new TypeError("evaltrace: promptCache must be an object like { ttlMillis: 60000 }");
  for (const key of Object.keys(o ?? {})) if (key !== "ttlMillis" && key !== "maxEntries") throw new TypeError(`evaltrace: unknown option \`promptCache.${key}\` (known: ttlMillis, maxEntries)`);
  const ttlMillis = o?.ttlMillis ?? DEFAULT_TTL_MILLIS;
  const maxEntries = o?.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (typeof ttlMillis !== "number" || !Number.isFinite(ttlMillis) || ttlMillis < 0) throw new TypeError(`evaltrace: promptCache.ttlMillis must be a number of milliseconds >= 0; got ${String(ttlMillis)}`);
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError(`evaltrace: promptCache.maxEntries must be a positive integer; got ${String(maxEntries)}`);
  return { ttlMillis, maxEntries };
}

/** Pulls prompts through the cache. */
export class PromptPuller {
  private readonly cache: PromptCache<Prompt>;
  private readonly ttlMillis: number;

  constructor(
    private readonly http: PromptHttp,
    clock: Clock,
    logger: Logger,
    options: PromptCacheOptions | undefined,
  ) {
    const o = checkCacheOptions(options);
    this.ttlMillis = o.ttlMillis;
    this.cache = new PromptCache(clock, logger, o.maxEntries);
  }

  async pull(alias: string, options?: PromptPullOptions): Promise<Prompt> {
    if (typeof alias !== "string" || alias.trim() === "") throw new ValidationError(`alias: expected a non-empty string; got ${describe(alias)}`);
    const { kind, value, ttl } = selectorOf(options);
    const path = READ_PATHS[kind](alias, value);
    const what = kind === "latest" ? `"${alias}"` : `"${alias}" (${kind} ${value})`;
    const fetch = async (inBackground: boolean) => parsePrompt(alias, path, await this.http.call("GET", path, undefined, undefined, inBackground));
    return this.cache.get(`${alias}\u0000${kind}\u0000${value}`, ttl ?? this.ttlMillis, what, fetch, isOutage);
  }

  stats(): PromptCacheStats {
    return this.cache.stats();
  }

  clear(): void {
    this.cache.clear();
  }
}

/** The service could not answer (network, timeout, 408, 429, 5xx): the last good copy may stand in. */
function isOutage(err: unknown): boolean {
  return err instanceof ServiceError && err.isRetryable;
}

/**
 * A prompt from the service's answer `{success, data: {...}}`. The fields are the vendor SDKs'
 * (deepeval `PromptHttpResponse`): `id`, `hash`, `version`, `label`, `text` or `messages`, `type`
 * (`TEXT` or `LIST`), `interpolationType`, `modelSettings`, `outputType`, `outputSchema`,
 * `tools`, `branch`.
 */
export function parsePrompt(alias: string, path: string, res: { data?: Record<string, unknown> }): Prompt {
  const bad = (what: string) => new ServiceError({ method: "GET", path, message: `the answer is not a prompt: ${what}` });
  const d = res.data;
  if (typeof d !== "object" || d === null) throw bad("no data");
  const str = (k: string): string => {
    if (typeof d[k] !== "string") throw bad(`data.${k} is not a string`);
    return d[k] as string;
  };
  const optStr = (k: string): string | null => {
    if (d[k] === undefined || d[k] === null) return null;
    return str(k);
  };
  const optObj = <T>(k: string): T | null => {
    if (d[k] === undefined || d[k] === null) return null;
    if (typeof d[k] !== "object" || Array.isArray(d[k])) throw bad(`data.${k} is not an object`);
    return d[k] as T;
  };
  const interpolationType = (d.interpolationType ?? "FSTRING") as InterpolationType;
  if (!INTERPOLATION_TYPES.includes(interpolationType)) throw bad(`data.interpolationType ${JSON.stringify(d.interpolationType)} is not one of ${INTERPOLATION_TYPES.join(", ")}`);
  const outputType = optStr("outputType");
  if (outputType !== null && !["TEXT", "JSON", "SCHEMA"].includes(outputType)) throw bad(`data.outputType ${JSON.stringify(outputType)} is not TEXT, JSON or SCHEMA`);
  if (d.tools !== undefined && d.tools !== null && !Array.isArray(d.tools)) throw bad("data.tools is not a list");
  const common = {
    alias,
    promptId: str("id"),
    hash: str("hash"),
    version: optStr("version"),
    label: optStr("label"),
    branch: optStr("branch"),
    interpolationType,
    modelSettings: optObj<PromptFields["modelSettings"] & object>("modelSettings"),
    outputType: outputType as PromptFields["outputType"],
    outputSchema: optObj<PromptFields["outputSchema"] & object>("outputSchema"),
    tools: (d.tools ?? null) as PromptFields["tools"],
  };
  const text = d.text ?? null;
  const messages = d.messages ?? null;
  if (text !== null && messages !== null) throw bad("it has both data.text and data.messages");
  if (typeof text === "string") {
    if (d.type !== undefined && d.type !== "TEXT") throw bad(`data.type is ${JSON.stringify(d.type)} but it has data.text`);
    return makePrompt({ ...common, text, messages: null });
  }
  if (!Array.isArray(messages)) throw bad("it has neither data.text (a string) nor data.messages (a list)");
  if (d.type !== undefined && d.type !== "LIST") throw bad(`data.type is ${JSON.stringify(d.type)} but it has data.messages`);
  messages.forEach((m: unknown, i) => {
    const mm = m as Record<string, unknown> | null;
    if (typeof mm !== "object" || mm === null || typeof mm.role !== "string" || typeof mm.content !== "string") throw bad(`data.messages[${i}] is not {role, content} strings`);
  });
  return makePrompt({ ...common, text: null, messages: (messages as PromptMessage[]).map((m) => ({ role: m.role, content: m.content })) });
}
