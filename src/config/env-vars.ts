import type { Logger } from "../logger.js";
import { processWide } from "../process-wide.js";

/** The environment variables of the SDK, with the names they had before (still read, deprecated). */
export const ENV_VARS = {
  apiKey: { name: "EVALTRACE_API_KEY", deprecated: "SERVICE_API_KEY" },
  baseUrl: { name: "EVALTRACE_BASE_URL", deprecated: "SERVICE_BASE_URL" },
  enabled: { name: "EVALTRACE_TRACING_ENABLED", deprecated: "SERVICE_TRACING_ENABLED" },
  sampleRate: { name: "EVALTRACE_SAMPLE_RATE", deprecated: "SERVICE_SAMPLE_RATE" },
  environment: { name: "EVALTRACE_ENVIRONMENT", deprecated: "SERVICE_ENVIRONMENT" },
} as const satisfies Record<string, { name: string; deprecated: string }>;

/** An option that an environment variable fills: a key of {@link ENV_VARS}. */
export type EnvOption = keyof typeof ENV_VARS;

/** The environment as the SDK reads it: names to values, any of them missing. */
export type Env = Record<string, string | undefined>;

/** A variable's value as read, and the name it was read under. */
export interface EnvValue {
  /** The value; undefined when neither name is set (an empty value counts as not set). */
  value: string | undefined;
  /** The name the value came from (the current one when neither is set). */
  name: string;
  /** Set when the value came from the deprecated name. */
  deprecated?: string;
}

/** The process environment where there is one (edge runtimes may have none). */
export function processEnv(): Env {
  const proc = (globalThis as { process?: { env?: Env } }).process;
  return proc?.env ?? {};
}

/**
 * Reads the variable behind `option`: its `EVALTRACE_` name, else its deprecated `SERVICE_` name
 * (the current name wins when both are set). Never warns: pass what it returns to
 * {@link warnDeprecatedEnv} once a logger is at hand.
 */
export function readEnv(env: Env, option: EnvOption): EnvValue {
  const { name, deprecated } = ENV_VARS[option];
  const current = env[name];
  if (current) return { value: current, name };
  const old = env[deprecated];
  if (old) return { value: old, name: deprecated, deprecated };
  return { value: undefined, name };
}

/** The deprecated names already warned about, for the process (every copy of the package shares it). */
const warned = (): Set<string> => processWide("deprecatedEnvWarned", () => new Set<string>());

/**
 * Warns once per process for each deprecated variable among `read`, naming the variable to use
 * instead. Never throws.
 */
export function warnDeprecatedEnv(read: readonly EnvValue[], logger: Logger): void {
  for (const r of read) {
    if (r.deprecated === undefined || warned().has(r.deprecated)) continue;
    warned().add(r.deprecated);
    const current = Object.values(ENV_VARS).find((v) => v.deprecated === r.deprecated)?.name;
    try {
      logger.warn(`environment variable ${r.deprecated} is deprecated: set ${current} instead (${r.deprecated} is still read when ${current} is not set)`);
    } catch {
      // A broken logger must not break the app.
    }
  }
}
