import { createRequire } from "node:module";
import { dirname } from "node:path";
import { ownFile } from "../util/own-file.js";
import { readVersion } from "./node-modules.js";

/** The key under which `@opentelemetry/api` 1.x registers its globals (with the registering copy's version). */
export const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The version of the copy that registered OpenTelemetry's globals in this process, if any did. */
export function registeredOtelApiVersion(): string | undefined {
  const global = (globalThis as { [OTEL_GLOBAL]?: { version?: unknown } })[OTEL_GLOBAL];
  return typeof global?.version === "string" ? global.version : undefined;
}

/** The version of the `@opentelemetry/api` copy evaltrace itself loads (its package.json is not exported: found by walking up). */
export async function ownOtelApiVersion(): Promise<string | undefined> {
  try {
    let dir = dirname(createRequire(ownFile()).resolve("@opentelemetry/api"));
    for (let i = 0; i < 6; i++) {
      const version = await readVersion(dir, "@opentelemetry/api");
      if (version !== undefined) return version;
      dir = dirname(dir);
    }
  } catch {
    // not resolvable from here
  }
  return undefined;
}

function parse(version: string): [number, number, number, boolean] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)(-.+)?$/.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] !== undefined] : undefined;
}

/**
 * Whether a copy of the API at `own` uses the globals registered by a copy at `registered`: the
 * rule of `@opentelemetry/api`'s own `isCompatible` (same major, and not a newer minor than the
 * registered one; 0.x and prereleases only match exactly).
 */
export function usesRegisteredGlobals(own: string, registered: string): boolean {
  if (own === registered) return true;
  const a = parse(own);
  const b = parse(registered);
  if (!a || !b || a[3] || b[3]) return false;
  if (a[0] !== b[0]) return false;
  if (a[0] === 0) return a[1] === b[1] && a[2] <= b[2];
  return a[1] <= b[1];
}
