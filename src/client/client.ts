import type { Clock } from "../clock.js";
import { type ResolvedOptions, resolveOptions } from "../config.js";
import { Transport } from "../http/transport.js";
import type { HttpMethod } from "../http/sender.js";
import { type Logger, redact, safeLogger } from "../logger.js";
import { currentRuntime } from "../runtime/configure.js";
import {
  checkApiKeyId,
  checkBatchMetrics,
  checkCollectionCreate,
  checkCollectionUpdate,
  checkDatasetPush,
  checkEvaluate,
  checkKeyUpdate,
  checkMetricCreate,
  checkMetricUpdate,
  checkOfflineEvaluation,
  checkPromptPush,
  checkRotate,
} from "../protocol/requests.js";
import { SchemaError } from "../protocol/schema.js";
import { checkDatasetPullQuery, readDatasetPull } from "../protocol/dataset-pull.js";
import type { Prompt } from "../prompts/prompt.js";
import type { PromptCacheOptions, PromptCacheStats } from "../prompts/prompt-cache.js";
import { EvaltraceError, ServiceError, ValidationError } from "./errors.js";
import { type PromptPullOptions, PromptPuller } from "./prompt-pull.js";
import type {
  ApiKey,
  DatasetPullOptions,
  DatasetPush,
  DatasetPushOptions,
  DatasetPushResult,
  EvaluateInput,
  Metric,
  MetricCollection,
  MetricCollectionInput,
  MetricInput,
  MetricSettingInput,
  MetricUpdate,
  OfflineEvaluationInput,
  PromptPush,
  PulledDataset,
  PromptPushResult,
  RotateApiKeyInput,
  UpdateApiKeyResult,
} from "../protocol/types.js";

/** Options of {@link Client}. Unset fields come from `configure()`, then the environment. */
export interface ClientOptions {
  /** A project key for most areas; an organization key for `apiKeys`. */
  apiKey?: string;
  baseUrl?: string;
  apiKeyHeader?: string;
  /** @default 10000 */
  requestTimeoutMillis?: number;
  /** Retries on network errors, 408, 429 and 5xx. @default 5 */
  maxRetries?: number;
  /**
   * Retries, at most `maxRetries`, when no connection can be made at all (nothing listens at
   * `baseUrl`, or no such host): lower it to give up sooner on a wrong address. @default maxRetries
   */
  maxConnectRetries?: number;
  logger?: Logger;
  clock?: Clock;
  /** How `prompts.pull()` caches prompts (TTL 60 s and 500 prompts by default). */
  promptCache?: PromptCacheOptions;
}

type Body = Record<string, unknown> & { success?: boolean; data?: Record<string, unknown>; link?: string; deprecated?: boolean };

const enc = encodeURIComponent;

/**
 * One typed client for the rest of the service's API: metrics, metric collections,
 * evaluations, prompts, datasets and organization API keys. It shares the tracing SDK's
 * transport (auth header, retries, timeouts, key-rotation warnings) and checks every rule the
 * spec states that needs no stored state before it sends anything.
 *
 * @example
 * const client = new Client({ apiKey: process.env.EVALTRACE_API_KEY });
 * await client.metrics.create({ name: "Politeness", criteria: "Is it polite?", evaluationParams: ["actualOutput"], multiTurn: false });
 */
export class Client {
  readonly metrics: MetricsApi;
  readonly metricCollections: MetricCollectionsApi;
  readonly evaluate: EvaluateApi;
  readonly prompts: PromptsApi;
  readonly datasets: DatasetsApi;
  readonly apiKeys: ApiKeysApi;
  /** @internal */
  readonly http: ClientHttp;

  constructor(options: ClientOptions = {}) {
    // The client's own logger hears of the environment's problems (a deprecated variable) too.
    const base: ResolvedOptions = currentRuntime()?.options ?? resolveOptions(options.logger ? { logger: options.logger } : {});
    const { promptCache, maxConnectRetries, ...rest } = options;
    if (maxConnectRetries !== undefined && !(Number.isInteger(maxConnectRetries) && maxConnectRetries >= 0)) {
      throw new TypeError(`evaltrace: option \`maxConnectRetries\` must be an integer >= 0; got ${String(maxConnectRetries)}`);
    }
    const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as ClientOptions;
    const resolved = resolveOptions({ ...pick(base), ...defined, registerExitHooks: false });
    this.http = new ClientHttp(resolved, maxConnectRetries);
    this.metrics = new MetricsApi(this.http);
    this.metricCollections = new MetricCollectionsApi(this.http);
    this.evaluate = new EvaluateApi(this.http);
    this.prompts = new PromptsApi(this.http, new PromptPuller(this.http, resolved.clock, this.http.logger, promptCache));
    this.datasets = new DatasetsApi(this.http);
    this.apiKeys = new ApiKeysApi(this.http);
  }

  /** Closes pooled connections. */
  close(): Promise<void> {
    return this.http.close();
  }
}

function pick(o: ResolvedOptions): ClientOptions {
  return {
    apiKey: o.apiKey,
    baseUrl: o.baseUrl,
    apiKeyHeader: o.apiKeyHeader,
    requestTimeoutMillis: o.requestTimeoutMillis,
    maxRetries: o.maxRetries,
    logger: o.logger,
    clock: o.clock,
  };
}

/** The client's one way to the service: validation, transport, typed errors, deprecation notes. */
class ClientHttp {
  private readonly transport: Transport;
  private readonly background: Transport;
  readonly logger: Logger;
  private readonly apiKey: string | undefined;
  private readonly warnedDeprecated = new Set<string>();

  constructor(o: ResolvedOptions, maxConnectRetries: number | undefined) {
    this.apiKey = o.apiKey;
    this.logger = safeLogger(o.logger, () => (o.apiKey ? [o.apiKey] : []));
    // Every client call is awaited: its retry waits must keep the process alive.
    this.transport = new Transport({ ...o, logger: this.logger, keepProcessAlive: true, maxConnectRetries });
    // Requests nobody awaits (a cached prompt's refresh): one attempt, never holding the process.
    this.background = new Transport({ ...o, logger: this.logger, maxRetries: 0, keepProcessAlive: false });
  }

  /** Runs `check` on the body (a spec rule broken: ValidationError, nothing sent), then sends. */
  async call(method: HttpMethod, path: string, body?: unknown, check?: (body: unknown) => unknown, inBackground = false): Promise<Body> {
    if (check) {
      try {
        check(body ?? {});
      } catch (err) {
        if (err instanceof SchemaError) throw new ValidationError(err.message);
        throw err;
      }
    }
    if (!this.apiKey) throw new EvaltraceError("configuration", "no API key: pass { apiKey } to new Client(), call configure({ apiKey }), or set EVALTRACE_API_KEY");
    const out = await (inBackground ? this.background : this.transport).send(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (!out.ok) {
      // A service that echoes the key back must not put it into our error.
      const secrets = [this.apiKey];
      // The error names the method and path; the transport's message names the whole address.
      const message = redact(out.message.replace(/^request to \S+ failed: /, "").replace(/^\S+ answered /, ""), secrets);
      const errorBody = out.body === undefined ? undefined : JSON.parse(redact(JSON.stringify(out.body), secrets));
      throw new ServiceError({ status: out.status, method, path, message, body: errorBody });
    }
    const res = (out.body ?? {}) as Body;
    if (res.deprecated === true && !this.warnedDeprecated.has(path.split("/").slice(0, 3).join("/"))) {
      this.warnedDeprecated.add(path.split("/").slice(0, 3).join("/"));
      this.logger.warn(`${method} ${path}: the service marks this endpoint as deprecated`);
    }
    return res;
  }

  async close(): Promise<void> {
    await Promise.all([this.transport.close(), this.background.close()]);
  }
}

function str(v: unknown, what: string): string {
  if (typeof v !== "string") throw new ServiceError({ method: "?", path: what, message: `the response has no ${what}` });
  return v;
}

/** Metrics (spec 4.3): custom metrics, and the default ones in `list()`. */
export class MetricsApi {
  constructor(private readonly http: ClientHttp) {}

  /** Creates one custom metric. */
  async create(metric: MetricInput): Promise<{ id: string }> {
    const res = await this.http.call("POST", "/v1/metrics", metric, checkMetricCreate);
    return { id: str(res.data?.id, "data.id") };
  }

  /** Creates several metrics in one request (`{metrics: [...]}`), all or none. */
  async createMany(metrics: MetricInput[]): Promise<{ ids: string[] }> {
    const res = await this.http.call("POST", "/v1/metrics", { metrics }, checkMetricCreate);
    return { ids: (res.data?.ids as string[]) ?? [] };
  }

  /** Creates metrics through `POST /v1/batch-metrics`. */
  async batchCreate(metrics: MetricInput[]): Promise<{ ids: string[] }> {
    const res = await this.http.call("POST", "/v1/batch-metrics", { metrics }, checkBatchMetrics);
    return { ids: (res.data?.ids as string[]) ?? [] };
  }

  /** Changes fields of a custom metric; criteria/evaluationSteps and evaluationParams must stay populated. */
  async update(id: string, fields: MetricUpdate): Promise<void> {
    await this.http.call("PUT", `/v1/metrics/${enc(id)}`, fields, (b) => {
      if (b && typeof b === "object" && "multiTurn" in b) throw new SchemaError("body.multiTurn: a metric's kind cannot change after creation (spec 7 rule 2)");
      checkMetricUpdate(b);
    });
  }

  /** Every metric of the project, default ones included. */
  async list(): Promise<Metric[]> {
    const res = await this.http.call("GET", "/v1/metrics");
    return (res.data?.metrics as Metric[]) ?? [];
  }
}

/** Metric collections (spec 4.4). */
export class MetricCollectionsApi {
  constructor(private readonly http: ClientHttp) {}

  /**
   * Creates a collection. The service answers without an id when `metricSettings` are given;
   * the client then looks the id up, so you always get one.
   */
  async create(collection: MetricCollectionInput): Promise<{ id: string }> {
    const res = await this.http.call("POST", "/v1/metric-collections", collection, checkCollectionCreate);
    if (typeof res.data?.id === "string") return { id: res.data.id };
    const found = (await this.list()).find((c) => c.name === collection.name && c.multiTurn === collection.multiTurn);
    return { id: str(found?.id, `id of collection ${collection.name}`) };
  }

  /** Renames a collection and/or replaces its metric settings (its kind cannot change). */
  async update(id: string, fields: { name?: string; metricSettings?: MetricSettingInput[] }): Promise<void> {
    await this.http.call("PUT", `/v1/metric-collections/${enc(id)}`, fields, checkCollectionUpdate);
  }

  /** Every collection, both kinds. */
  async list(): Promise<MetricCollection[]> {
    const res = await this.http.call("GET", "/v1/metric-collections");
    return (res.data?.metricCollections as MetricCollection[]) ?? [];
  }

  /**
   * Adds one metric setting (or replaces the one for that metric), keeping the others: it fetches
   * the current settings first, as spec 4.4 recommends, since an update replaces them all.
   */
  async addMetric(id: string, setting: MetricSettingInput): Promise<void> {
    const current = await this.get(id);
    const others = current.metricSettings.filter((s) => s.metric.name !== setting.metric.name);
    await this.update(id, { metricSettings: [...others, setting] });
  }

  /** Removes one metric setting by metric name, keeping the others. */
  async removeMetric(id: string, metricName: string): Promise<void> {
    const current = await this.get(id);
    await this.update(id, { metricSettings: current.metricSettings.filter((s) => s.metric.name !== metricName) });
  }

  private async get(id: string): Promise<MetricCollection> {
    const found = (await this.list()).find((c) => c.id === id);
    if (!found) throw new ServiceError({ status: 404, method: "GET", path: "/v1/metric-collections", message: `no metric collection with id ${id}` });
    return found;
  }
}

/** Evaluations: test runs (spec 4.5) and direct offline evaluations (spec 4.7). */
export class EvaluateApi {
  constructor(private readonly http: ClientHttp) {}

  /** Runs a collection over test cases of one kind; returns the test run id. */
  async run(input: EvaluateInput): Promise<{ testRunId: string }> {
    const res = await this.http.call("POST", "/v1/evaluate", input, checkEvaluate);
    return { testRunId: str(res.data?.id, "data.id") };
  }

  /**
   * Evaluates a thread now with a multi-turn collection. Traces recorded with `observe()` are
   * better evaluated with `evaluateThread()`, which waits until they were delivered.
   */
  async thread(threadId: string, input: OfflineEvaluationInput & { chatbotRole?: string }): Promise<void> {
    await this.offline("thread", `/v1/evaluate/threads/${enc(threadId)}`, input);
  }

  /** Evaluates a delivered trace now with a single-turn collection. */
  async trace(uuid: string, input: OfflineEvaluationInput): Promise<void> {
    await this.offline("trace", `/v1/evaluate/traces/${enc(uuid)}`, input);
  }

  /** Evaluates a delivered span now with a single-turn collection. */
  async span(uuid: string, input: OfflineEvaluationInput): Promise<void> {
    await this.offline("span", `/v1/evaluate/spans/${enc(uuid)}`, input);
  }

  private async offline(target: "thread" | "trace" | "span", path: string, input: OfflineEvaluationInput & { chatbotRole?: string }) {
    const { metricCollection, ...rest } = input;
    // The spec's key is `metricCollections`; the live service reads `metricCollection`: send both.
    const body = { metricCollections: metricCollection, metricCollection, ...rest };
    await this.http.call("POST", path, body, (b) => checkOfflineEvaluation(b, target));
  }
}

/** Prompt pushes (spec 4.8) and pulls (the vendor's read paths), with a cache. */
export class PromptsApi {
  constructor(
    private readonly http: ClientHttp,
    private readonly puller: PromptPuller,
  ) {}

  /**
   * Pulls a prompt: by `version`, `label`, `hash` or `branch` (its newest commit), or the newest
   * commit of `main` when none is given. Pulled prompts are cached per alias and selector: within
   * the TTL from memory; after it, the cached copy is served at once while one background request
   * refreshes it; while the service is down, the last good copy (logged once, counted in
   * {@link PromptsApi.cacheStats}). A prompt never pulled before fails with the service's error.
   *
   * @example
   * const prompt = await client.prompts.pull("greeting", { label: "production" });
   * const text = prompt.type === "TEXT" ? prompt.interpolate({ name: "Ada" }) : "";
   */
  pull(alias: string, options?: PromptPullOptions): Promise<Prompt> {
    return this.puller.pull(alias, options);
  }

  /** Counters of the prompt cache: hits, stale copies served, refreshes, failures, last good copies served. */
  cacheStats(): PromptCacheStats {
    return this.puller.stats();
  }

  /** Forgets every cached prompt; the next pulls ask the service. */
  clearCache(): void {
    this.puller.clear();
  }

  /** Pushes a commit to a prompt's branch; the prompt and branch are created when new. */
  async push(prompt: PromptPush): Promise<PromptPushResult> {
    const res = await this.http.call("POST", "/v2/prompts", prompt, checkPromptPush);
    return { promptId: str(res.data?.promptId, "data.promptId"), hash: str(res.data?.hash, "data.hash"), link: res.link ?? "", deprecated: res.deprecated === true };
  }
}

/** Dataset pushes (spec 4.9) and pulls (`GET /v1/datasets/:alias`, the vendor SDKs' read). */
export class DatasetsApi {
  constructor(private readonly http: ClientHttp) {}

  /**
   * Pushes goldens to a dataset in requests of `chunkSize`, reporting progress. All goldens are
   * checked before the first request. If a request fails, the error says how many were pushed.
   */
  async push(push: DatasetPush, options: DatasetPushOptions = {}): Promise<DatasetPushResult> {
    const chunkSize = options.chunkSize ?? 500;
    if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new TypeError(`evaltrace: chunkSize must be a positive integer; got ${chunkSize}`);
    try {
      checkDatasetPush(push);
    } catch (err) {
      if (err instanceof SchemaError) throw new ValidationError(err.message);
      throw err;
    }
    const goldens = push.goldens as unknown[];
    let pushed = 0;
    let requests = 0;
    let last: Body = {};
    while (pushed < goldens.length) {
      const chunk = goldens.slice(pushed, pushed + chunkSize);
      try {
        last = await this.http.call("POST", "/v2/datasets", { ...push, goldens: chunk });
      } catch (err) {
        if (err instanceof ServiceError && pushed > 0) {
          throw new ServiceError({ status: err.status, method: err.method, path: err.path, body: err.body, message: `${err.message} (after ${pushed} of ${goldens.length} goldens were pushed)` });
        }
        throw err;
      }
      pushed += chunk.length;
      requests++;
      options.onProgress?.({ pushed, total: goldens.length });
    }
    return { datasetId: str(last.data?.id, "data.id"), link: last.link ?? "", deprecated: last.deprecated === true, pushed, requests };
  }

  /**
   * Pulls a dataset's goldens: of `version`, else of the latest version, else the unversioned
   * ones; only finalized goldens unless `finalized: false`. An unknown alias or version is the
   * service's 404, as a {@link ServiceError}.
   */
  async pull(alias: string, options: DatasetPullOptions = {}): Promise<PulledDataset> {
    if (typeof alias !== "string" || alias.trim().length === 0) throw new ValidationError(`alias must be a non-empty string; got ${JSON.stringify(alias)}`);
    if (options === null || typeof options !== "object") throw new ValidationError("options must be an object such as { version: \"1\" }");
    const unknown = Object.keys(options).filter((k) => k !== "version" && k !== "finalized");
    if (unknown.length > 0) throw new ValidationError(`options.${unknown[0]}: a pull takes version and finalized`);
    if (options.finalized !== undefined && typeof options.finalized !== "boolean") throw new ValidationError("options.finalized must be a boolean");
    const query = new URLSearchParams({ finalized: String(options.finalized ?? true) });
    if (options.version !== undefined) query.set("version", String(options.version));
    try {
      checkDatasetPullQuery(query);
    } catch (err) {
      if (err instanceof SchemaError) throw new ValidationError(err.message.replace(/^query\./, "options."));
      throw err;
    }
    const path = `/v1/datasets/${enc(alias)}`;
    const res = await this.http.call("GET", `${path}?${query}`);
    let data: ReturnType<typeof readDatasetPull>;
    try {
      data = readDatasetPull(res.data);
    } catch (err) {
      throw new ServiceError({ method: "GET", path, message: `unexpected answer: ${(err as Error).message}` });
    }
    return { alias, datasetId: data.id, version: data.version, multiTurn: data.multiTurn, goldens: data.goldens } as PulledDataset;
  }
}

/** Organization API keys (spec 3.1, 4.1, 4.2); use an organization key with these. */
export class ApiKeysApi {
  constructor(private readonly http: ClientHttp) {}

  /**
   * Rotates a key. Without a grace period the new value is in `value` (shown only here); with
   * one, it is in `shadowValue` and both values work until `rotatesAt`.
   */
  async rotate(apiKeyId: number, input: RotateApiKeyInput = {}): Promise<ApiKey> {
    const id = this.id(apiKeyId);
    const res = await this.http.call("POST", `/v1/organization/api-keys/${id}/rotate`, input, checkRotate);
    return (res.data as { apiKey: ApiKey }).apiKey;
  }

  /** Activates (`valid: true`) or deactivates a key; takes effect at once. */
  async update(apiKeyId: number, input: { valid: boolean }): Promise<UpdateApiKeyResult> {
    const id = this.id(apiKeyId);
    const res = await this.http.call("PUT", `/v2/organization/api-keys/${id}`, input, checkKeyUpdate);
    return { ...(res.data as unknown as ApiKey), deprecated: res.deprecated === true };
  }

  private id(apiKeyId: number): number {
    try {
      return checkApiKeyId(apiKeyId);
    } catch (err) {
      throw new ValidationError((err as Error).message);
    }
  }
}
