import { nodeBuiltinNow } from "./node-builtin.js";
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
    loaded ??= requireHere(name) as T;
    return loaded;
  };
}

/**
 * `require(name)` from the built file. `node:module` is taken when called, not imported (an edge
 * bundler sees no Node builtin at module scope, issue 49); where the runtime has none (an edge
 * runtime) it throws, as `require` of a missing package does.
 */
export function requireHere(name: string): unknown {
  const mod = nodeBuiltinNow<typeof import("node:module")>("module");
  if (!mod) throw Object.assign(new Error(`cannot load ${name}: this runtime has no require (node:module)`), { code: "MODULE_NOT_FOUND" });
  return mod.createRequire(ownFile())(name);
}
