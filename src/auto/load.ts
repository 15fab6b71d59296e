import { createRequire } from "node:module";
import { ownFile } from "../util/own-file.js";

export { ownFile };

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
