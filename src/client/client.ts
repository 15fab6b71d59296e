import type { Clock } from "../clock.js";
import { type ResolvedOptions, resolveOptions } from "../config/options.js";
import type { Logger } from "../logger.js";
import type { PromptCacheOptions } from "../prompts/prompt-cache.js";
import { currentRuntime } from "../runtime/configure.js";
import { ApiKeysApi } from "./api-keys.js";
import { ClientHttp } from "./client-http.js";
import { DatasetsApi } from "./datasets.js";
import { EvaluateApi } from "./evaluate.js";
import { MetricCollectionsApi } from "./metric-collections.js";
import { MetricsApi } from "./metrics.js";
import { PromptPuller } from "./prompt-pull.js";
import { PromptsApi } from "./prompts.js";

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
