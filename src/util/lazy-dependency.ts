import { createRequire } from "node:module";
import { ownFile } from "./own-file.js";

/**
 * A dependency loaded on first use rather than when evaltrace is imported (start-up: an app
 * that never needs it never pays for it). Loaded synchronously through `require` from the built
 * file, the same way in the ESM and the CommonJS build; the module is cached after the first call.
 * Throws as `require` would if the dependency is missing, and tries again on the next call: a
 * caller whose dependency is optional (not installed with every app) catches that and says so.
 */
export function lazyDependency<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= createRequire(ownFile())(name) as T;
    return loaded;
  };
}
