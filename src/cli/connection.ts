import { Client } from "../client/client.js";
import { ServiceError } from "../client/errors.js";
import { DEFAULT_BASE_URL, isHttpUrl, processEnv } from "../config/options.js";
import { ENV_VARS, type EnvValue, readEnv, warnDeprecatedEnv } from "../config/env-vars.js";
import { consoleLogger } from "../logger.js";
import { usageError } from "./args.js";
import { EXIT } from "./exit-codes.js";

/** Help lines of `--api-key` and `--base-url`, naming the variables and the default address as the code has them. */
export function connectionUsage(pad: number): string {
  const col = (flag: string) => `         ${flag.padEnd(pad)}`;
  return (
    `${col("--api-key KEY")}project API key (default: the ${ENV_VARS.apiKey.name} environment variable)\n` +
    `${col("--base-url URL")}service URL (default: ${ENV_VARS.baseUrl.name}, else ${DEFAULT_BASE_URL},\n` +
    `${col("")}where evaltrace dev listens)\n`
  );
}

/** Retries of a command when nothing listens at the address: the answer is clear in about a second. */
const CONNECT_RETRIES = 2;

/** Where a command sends, and with which key. */
export interface Connection {
  apiKey: string;
  baseUrl: string;
}

/**
 * The key and address of a command: the flags, else the environment (a deprecated variable warned
 * about once), else the emulator's address. A missing key or an address that is no http(s) URL is
 * a usage error: its exit code is returned instead.
 */
export function connectionOf(command: string, flags: { "api-key"?: string; "base-url"?: string }): Connection | number {
  const env = processEnv();
  const read: EnvValue[] = [];
  let apiKey = flags["api-key"] || undefined;
  if (!apiKey) {
    const fromEnv = readEnv(env, "apiKey");
    read.push(fromEnv);
    apiKey = fromEnv.value;
  }
  let baseUrl = flags["base-url"];
  let from = "--base-url";
  if (!baseUrl) {
    const fromEnv = readEnv(env, "baseUrl");
    read.push(fromEnv);
    baseUrl = fromEnv.value ?? DEFAULT_BASE_URL;
    from = fromEnv.value ? fromEnv.name : "the default";
  }
  warnDeprecatedEnv(read, consoleLogger());
  if (!apiKey) {
    return usageError(command, `no API key: pass --api-key KEY or set ${ENV_VARS.apiKey.name} (evaltrace dev prints one for the local emulator)`);
  }
  if (!isHttpUrl(baseUrl)) return usageError(command, `${from} must be an http(s) URL such as ${DEFAULT_BASE_URL}; got "${baseUrl}"`);
  return { apiKey, baseUrl: baseUrl.replace(/\/+$/, "") };
}

/** A client for the command: it gives up on an address where nothing listens after a short retry. */
export function clientOf(c: Connection): Client {
  return new Client({ apiKey: c.apiKey, baseUrl: c.baseUrl, maxConnectRetries: CONNECT_RETRIES });
}

/**
 * When `err` says the service never answered (nothing listens at the address, no such host, no
 * answer in time): writes one line naming the address and returns {@link EXIT.unreachable}.
 * Undefined for any other error.
 */
export function unreachable(command: string, baseUrl: string, err: unknown): number | undefined {
  if (!(err instanceof ServiceError) || err.status !== undefined) return undefined;
  process.stderr.write(
    `evaltrace ${command}: could not reach the service at ${baseUrl} (${err.message}); start the emulator with \`evaltrace dev\`, or pass --base-url URL or set ${ENV_VARS.baseUrl.name}\n`,
  );
  return EXIT.unreachable;
}
