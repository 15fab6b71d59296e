import * as nodeModule from "node:module";
import { pathToFileURL } from "node:url";
import type { HookDependencies } from "./dependencies.js";
import { esmScope, isWrapperUrl } from "./esm-scope.js";
import { autoState, type Resolved, type ResolveHook } from "./state.js";
import { syncHooksWork } from "./sync-hooks.js";

type CreateHook = (meta: { url: string }) => { applyOptions: (options: { include: (string | RegExp)[] }) => void; resolveSync: ResolveHook; loadSync: unknown };
type RegisterHooks = (hooks: { resolve?: ResolveHook; load?: unknown }) => void;

/**
 * import-in-the-middle's synchronous hooks (`module.registerHooks`), where this Node runs them
 * correctly; false elsewhere (Bun included). Made as its `register-hooks.mjs` makes them, with
 * `include`, and with its resolve step behind a cheap test (`esm-scope.ts`): a module outside
 * the packages of `scope` is resolved by Node alone. The resolve step is kept in
 * {@link AutoState.resolveEsm}; when zero-code's start-up resolve hook is registered
 * (`on-first-import.ts`), it hands every resolve to that step and no second resolve hook is
 * registered, so each of the app's modules crosses one resolve hook and one load hook.
 */
export function registerSyncHooks(dependencies: HookDependencies, include: (string | RegExp)[], scope: readonly string[]): boolean {
  if (!syncHooksWork(dependencies)) return false;
  const load = dependencies.require;
  const { createHook } = load("import-in-the-middle/create-hook.mjs") as { createHook: CreateHook };
  const hook = createHook({ url: pathToFileURL(load.resolve("import-in-the-middle/register-hooks.mjs")).href });
  hook.applyOptions({ include });
  const inScope = esmScope(scope);
  const resolve: ResolveHook = (specifier, context, next) => {
    if (isWrapperUrl(specifier)) return keepBuiltin(hook.resolveSync(specifier, context, next));
    // import-in-the-middle leaves `require` alone (require-in-the-middle hooks it).
    if (context.conditions?.includes("require")) return next(specifier, context);
    const resolved = next(specifier, context);
    if (!inScope(resolved.url, specifier)) return resolved;
    // Node's answer, not asked twice; import-in-the-middle keeps this step to resolve other specifiers later.
    const again: typeof next = (s, c) => (s === specifier && (c === undefined || c === context) ? resolved : next(s, c));
    return keepBuiltin(hook.resolveSync(specifier, context, again));
  };
  const state = autoState();
  state.resolveEsm = resolve;
  const registerHooks = (nodeModule as unknown as { registerHooks: RegisterHooks }).registerHooks;
  registerHooks(state.startResolveHook ? { load: hook.loadSync } : { resolve, load: hook.loadSync });
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
