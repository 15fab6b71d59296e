import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

declare const __filename: string | undefined;

/** This file, in either build (`import.meta.url` is only read in the ESM one). */
export function ownFile(): string {
  return typeof __filename === "string" ? __filename : fileURLToPath(import.meta.url);
}

/**
 * Loads one of the package's own subpath entries (`langchain`, `mcp`) synchronously, at the
 * moment its library loads: those entries import their library, so zero-code cannot import them
 * up front (an app without the library would fail). The CommonJS build is taken from either
 * build, as `require` is the one synchronous loader; undefined when it cannot be loaded.
 */
export function loadOwnEntry<T>(entry: string): T | undefined {
  try {
    return createRequire(ownFile())(`./${entry}.cjs`) as T;
  } catch {
    return undefined;
  }
}
