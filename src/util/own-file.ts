import { nodeBuiltinNow } from "./node-builtin.js";

let file: string | undefined;

/**
 * The path of this built file, the same way in the ESM and the CommonJS build (`import.meta` is
 * a syntax error in CommonJS, and `__filename` does not exist in ESM): read from this function's
 * own stack frame. `node:url` is taken when called, not imported: an edge bundler (Next.js's) sees
 * no Node builtin at module scope (issue 49).
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
  const url = nodeBuiltinNow<typeof import("node:url")>("url");
  file = name?.startsWith("file:") && url ? url.fileURLToPath(name) : (name ?? globalThis.process?.cwd?.() ?? "");
  return file;
}
