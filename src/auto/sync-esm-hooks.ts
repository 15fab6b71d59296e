import * as nodeModule from "node:module";
import { pathToFileURL } from "node:url";
import { packageOfSpecifier, packageOfUrl } from "./claims.js";
import type { HookDependencies } from "./dependencies.js";
import { withNamespaceHandoff } from "./esm-handoff.js";
import { esmScope, isWrapperUrl } from "./esm-scope.js";
import { esmTargets, targetsOf } from "./esm-targets.js";
import { useImportInTheMiddle } from "./module-hooks.js";
import { autoState, type Resolved, type ResolveHook } from "./state.js";
import { syncHooksWork } from "./sync-hooks.js";

type Loaded = { format?: string | null; source?: string | ArrayBuffer | ArrayBufferView | null; shortCircuit?: boolean };
type LoadHook = (url: string, context: object, next: (url: string, context?: object) => Loaded) => Loaded;
type IitmHook = { applyOptions: (options: { include: (string | RegExp)[] }) => void; resolveSync: ResolveHook; loadSync: LoadHook };
type CreateHook = (meta: { url: string }) => IitmHook;
type RegisterHooks = (hooks: { resolve?: ResolveHook; load?: LoadHook }) => void;

/**
 * Zero-code's synchronous ESM hooks (`module.registerHooks`), where this Node runs them correctly;
 * false elsewhere (Bun included). An ES module of a claimed package (`esm-scope.ts`) that a
 * library's hook targets (`esm-targets.ts`) gets its namespace hand-off appended to its source
 * (`esm-handoff.ts`): no wrapper module, no export lexer. A claimed module Node does not resolve
 * as ESM (a CommonJS file an ES module imports) still goes to import-in-the-middle, made at the
 * first such module with `include`, as before. The resolve step is kept in
 * {@link AutoState.resolveEsm}; when zero-code's start-up resolve hook is registered
 * (`on-first-import.ts`), it hands every resolve to that step and no second resolve hook is
 * registered, so each of the app's modules crosses one resolve hook and one load hook.
 */
export function registerSyncHooks(dependencies: HookDependencies, include: (string | RegExp)[], scope: readonly string[]): boolean {
  if (!syncHooksWork()) return false;
  let iitm: IitmHook | undefined;
  const importInTheMiddle = (): IitmHook => {
    if (!iitm) {
      const load = dependencies.require;
      const { createHook } = load("import-in-the-middle/create-hook.mjs") as { createHook: CreateHook };
      iitm = createHook({ url: pathToFileURL(load.resolve("import-in-the-middle/register-hooks.mjs")).href });
      iitm.applyOptions({ include });
      // Its wrapper modules hand the modules over to the hooks of `module-hooks.ts`.
      useImportInTheMiddle();
    }
    return iitm;
  };
  const inScope = esmScope(scope);
  const claimed = new Set(scope);
  const { mainUrls } = esmTargets();
  const resolve: ResolveHook = (specifier, context, next) => {
    if (isWrapperUrl(specifier)) return keepBuiltin(importInTheMiddle().resolveSync(specifier, context, next));
    // Neither hook touches `require` (require-in-the-middle hooks it).
    if (context.conditions?.includes("require")) return next(specifier, context);
    const resolved = next(specifier, context);
    if (!inScope(resolved.url, specifier)) return resolved;
    if (resolved.format === "module") {
      // The package's main entry is the module its bare name resolves to (import-in-the-middle's rule).
      if (packageOfSpecifier(specifier) === specifier && packageOfUrl(resolved.url) === specifier) mainUrls.add(resolved.url);
      return resolved;
    }
    // Node's answer, not asked twice; import-in-the-middle keeps this step to resolve other specifiers later.
    const again: typeof next = (s, c) => (s === specifier && (c === undefined || c === context) ? resolved : next(s, c));
    // A package of its own inside a claimed one's folder (`@langchain/core/node_modules/p-queue`): never one to wrap.
    const owner = packageOfUrl(resolved.url);
    if (owner !== undefined && !claimed.has(owner)) return resolved;
    return keepBuiltin(importInTheMiddle().resolveSync(specifier, context, again));
  };
  const load: LoadHook = (url, context, next) => {
    const loaded = iitm ? iitm.loadSync(url, context, next) : next(url, context);
    if (loaded.format !== "module" || loaded.source == null) return loaded;
    const targets = targetsOf(url);
    if (targets.length === 0) return loaded;
    const source = typeof loaded.source === "string" ? loaded.source : new TextDecoder().decode(loaded.source as ArrayBuffer);
    return { ...loaded, source: withNamespaceHandoff(source, url, [...new Set(targets.flatMap((t) => t.replaces))]) };
  };
  const state = autoState();
  state.resolveEsm = resolve;
  const registerHooks = (nodeModule as unknown as { registerHooks: RegisterHooks }).registerHooks;
  registerHooks(state.startResolveHook ? { load } : { resolve, load });
  return true;
}

/**
 * import-in-the-middle 3.6 gives a builtin required from code with no parent URL (`node -e`)
 * the format "commonjs" (its entry-point rule), and Node then reads it as a file: a `node:` URL
 * keeps the format "builtin".
 */
function keepBuiltin(resolved: Resolved): Resolved {
  return resolved.url.startsWith("node:") && resolved.format !== "builtin" ? { ...resolved, format: "builtin" } : resolved;
}
