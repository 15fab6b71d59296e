import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

let file: string | undefined;

/**
 * The path of this built file, the same way in the ESM and the CommonJS build (`import.meta` is
 * a syntax error in CommonJS, and `__filename` does not exist in ESM): read from this function's
 * own stack frame.
 */
export function ownFile(): string {
  if (file !== undefined) return file;
  const prepare = Error.prepareStackTrace;
  let name: string | undefined;
  try {
    Error.prepareStackTrace = (_err, frames) => frames;
    const frames = new Error().stack as unknown as NodeJS.CallSite[];
    name = frames[0]?.getFileName() ?? undefined;
  } catch {
    name = undefined;
  } finally {
    Error.prepareStackTrace = prepare;
  }
  file = name?.startsWith("file:") ? fileURLToPath(name) : (name ?? process.cwd());
  return file;
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
