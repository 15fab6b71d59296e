import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * OpenTelemetry JS SDK 1.x (`@opentelemetry/sdk-trace-base` 1.30.1, `@opentelemetry/sdk-node`
 * 0.57.2) lives in test/otel1/package.json, apart from the root's SDK 2; `install()` of
 * test/otel1/install.mjs installs it on demand (`npm ci`, the registry needed once).
 */
export const otel1Dir = fileURLToPath(new URL("../otel1/", import.meta.url));

/** Installs test/otel1 when its node_modules does not match its lock. */
export async function installOtel1(): Promise<void> {
  const { install } = (await import(new URL("../otel1/install.mjs", import.meta.url).href)) as { install: () => void };
  install();
}

/** `require` resolving from test/otel1 (the SDK 1.x packages are CommonJS). */
export const requireOtel1 = createRequire(`${otel1Dir}package.json`);
