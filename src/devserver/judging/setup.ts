import type { Judge } from "../context.js";
import { limitJudge } from "./limit.js";
import { completionsUrl, openAIJudge } from "./openai-judge.js";

/** The judge endpoint's settings, as `startDevServer` takes them. */
export interface JudgeEndpointOptions {
  judge?: Judge;
  judgeUrl?: string;
  judgeModel?: string;
  judgeApiKey?: string;
  judgeConcurrency?: number;
  judgeTimeoutMillis?: number;
}

/** The environment variables that stand in for the options when neither `judge` nor `judgeUrl` is given. */
export const JUDGE_ENV = { url: "EVALTRACE_DEV_JUDGE_URL", model: "EVALTRACE_DEV_JUDGE_MODEL", apiKey: "EVALTRACE_DEV_JUDGE_API_KEY" } as const;

/** Judge calls in flight at once, by default. */
export const DEFAULT_JUDGE_CONCURRENCY = 4;
/** Time one judge call may take, by default. */
export const DEFAULT_JUDGE_TIMEOUT_MILLIS = 60_000;
/** Judge calls that may wait for a free slot; more are recorded as errors at once. */
export const MAX_JUDGE_WAITING = 10_000;

/** A configured judge endpoint: its bounded judge, where it is, and the switch that aborts its calls. */
export interface JudgeEndpoint {
  judge: Judge;
  label: string;
  abort: AbortController;
}

function positiveInteger(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 1) throw new TypeError(`startDevServer: ${name} must be a positive integer; got ${JSON.stringify(v)}`);
  return v;
}

/**
 * The judge endpoint of the options, undefined when there is none. `EVALTRACE_DEV_JUDGE_URL`
 * names it when the options name no judge at all; `EVALTRACE_DEV_JUDGE_MODEL` and
 * `EVALTRACE_DEV_JUDGE_API_KEY` fill in a model and a key the options leave out. Clear
 * errors for a judge given twice, a URL that is not http(s), or a URL without a model.
 */
export function judgeEndpoint(o: JudgeEndpointOptions, env: NodeJS.ProcessEnv = process.env): JudgeEndpoint | undefined {
  if (o.judge !== undefined && o.judgeUrl !== undefined) throw new TypeError("startDevServer: give either judge (a function) or judgeUrl (an endpoint), not both");
  // The environment names the endpoint only when the options name no judge at all; its model and key fill in what the options leave out.
  const url = o.judgeUrl ?? (o.judge === undefined ? env[JUDGE_ENV.url] || undefined : undefined);
  if (url === undefined) return undefined;
  const model = o.judgeModel ?? (env[JUDGE_ENV.model] || undefined);
  if (!model) throw new TypeError(`startDevServer: judgeUrl needs judgeModel, the model the endpoint runs (${JUDGE_ENV.model} in the environment)`);
  const endpoint = completionsUrl(url);
  const abort = new AbortController();
  const judge = openAIJudge({
    url: endpoint,
    model,
    apiKey: o.judgeApiKey ?? (env[JUDGE_ENV.apiKey] || undefined),
    timeoutMillis: positiveInteger("judgeTimeoutMillis", o.judgeTimeoutMillis, DEFAULT_JUDGE_TIMEOUT_MILLIS),
    signal: abort.signal,
  });
  const limits = { concurrency: positiveInteger("judgeConcurrency", o.judgeConcurrency, DEFAULT_JUDGE_CONCURRENCY), maxWaiting: MAX_JUDGE_WAITING };
  return { judge: limitJudge(judge, limits), label: `${model} at ${endpoint}`, abort };
}
