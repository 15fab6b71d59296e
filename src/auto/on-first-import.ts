import * as nodeModule from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { reportInternalError } from "../util/internal-errors.js";
import { ownFile } from "../util/own-file.js";
import { CLAIMS, esmIncludeOf, packageOfSpecifier, packageOfUrl, packagesOf } from "./claims.js";
import { type HookDependencies, hookDependencies } from "./dependencies.js";
import { DISABLE_ENV, disabledByEnvironment } from "./disabled.js";
import { installedPackages } from "./installed.js";
import { LIBRARIES, type LibraryName } from "./libraries.js";
import { loadOwnEntry } from "./load.js";
import { autoState, type ResolveHook } from "./state.js";
import { BUNDLED_CHECK_KEY } from "./bundled-constants.js";
import { nodeBuiltinNow } from "../util/node-builtin.js";
import { syncHooksWork } from "./sync-hooks.js";

/** The global the ESM wrappers of the module-hooks thread call first (`esm-loader.ts`): it sets zero-code up. */
export const SETUP_KEY = "evaltrace.auto.setup";

/** What the module-hooks thread's loader is told (`esm-loader.ts`). */
export interface LoaderData {
  /** import-in-the-middle's `include` list. */
  include: (string | RegExp)[];
  /** The packages of `include`: a module outside them skips import-in-the-middle's resolve step (`esm-scope.ts`). */
  scope: string[];
  /** The claimed packages the app has installed: the first module resolved in one of them sets the hooks up. */
  packages: string[];
  /** import-in-the-middle's asynchronous hook module, as a file URL. */
  hook: string;
  /** The statement put first in each module wrapper import-in-the-middle makes. */
  prelude: string;
}

/**
 * `evaltrace/auto` on the app's main thread: nothing of the hooks is loaded until the app first
 * imports or requires a package a library's hooks claim (`claims.ts`), and only the libraries
 * the app has installed are hooked; when it has none, nothing is registered at all. Then the
 * SDK is configured from the environment and the hooks are made (`instrumentFromEnvironment`),
 * before that package's module is handed to the app. The triggers: `Module.prototype.require`
 * (CommonJS), a synchronous resolve hook (`module.registerHooks`, where import-in-the-middle
 * runs on it), or else import-in-the-middle's hook on the module-hooks thread of
 * `module.register` (Node 20), loaded there at the first claimed module. Never throws.
 */
export function startZeroCode(): void {
  try {
    const { disabled, unknown } = disabledByEnvironment(process.env[DISABLE_ENV]);
    const wanted = LIBRARIES.filter((name) => !disabled.includes(name));
    const packages = installedPackages(wanted.flatMap((name) => CLAIMS[name].packages));
    const libraries = wanted.filter((name) => CLAIMS[name].packages.some((p) => packages.includes(p)));
    const dependencies = hookDependencies();
    // Unknown names, or the hooks' package missing: set up now, which says so through the runtime's logger.
    if (unknown.length > 0 || !dependencies) {
      setupOnce(dependencies ? libraries : LIBRARIES)();
      return;
    }
    if (libraries.length === 0) return;
    const setup = setupOnce(libraries);
    const claimed = new Set(packages);
    hookRequire(claimed, setup);
    hookImport(dependencies, claimed, libraries, setup);
    watchEarlyModelRequests(setup);
  } catch (error) {
    reportInternalError("zero-code start (evaltrace/auto)", error, undefined);
  }
}

type Setup = () => void;

/** Sets zero-code up once: loads its code (the CommonJS build: `require` is the one synchronous loader) and runs it. */
let done = false;
/** Whether zero-code was set up (by any trigger). */
const setupDone = (): boolean => done;

function setupOnce(libraries: readonly LibraryName[]): Setup {
  const setup = (): void => {
    if (done) return;
    done = true;
    loadOwnEntry<{ instrumentFromEnvironment: (installed: readonly LibraryName[]) => void }>("auto-setup")?.instrumentFromEnvironment(libraries);
  };
  Object.defineProperty(globalThis, Symbol.for(SETUP_KEY), { value: setup, configurable: true, enumerable: false, writable: false });
  return setup;
}

/** Headers only the model SDKs' own requests carry (the Stainless SDKs', Google's): see bundled-sdk.ts. */
const SDK_HEADERS = new Set(["x-stainless-lang", "x-goog-api-client"]);

/**
 * A model SDK's request before the app imported any claimed package comes from a copy no hook
 * can see (a bundler put it into the app's files: Next.js): zero-code is set up then, and the
 * request handed to its bundled-copy watch (bundled-sdk.ts), which says so once. A header look
 * at undici's `undici:request:create`, nothing changed; gone once zero-code is set up.
 */
function watchEarlyModelRequests(setup: Setup): void {
  const channel = "undici:request:create";
  const dc = nodeBuiltinNow<typeof import("node:diagnostics_channel")>("diagnostics_channel");
  if (typeof dc?.subscribe !== "function") return;
  const early = (message: unknown): void => {
    try {
      if (setupDone()) return void dc.unsubscribe(channel, early);
      const headers = (message as { request?: { headers?: unknown } } | null)?.request?.headers;
      const names = Array.isArray(headers) ? headers.filter((_, i) => i % 2 === 0).map((h) => String(h).toLowerCase()) : typeof headers === "string" ? headers.split("\r\n").map((l) => l.slice(0, l.indexOf(":")).trim().toLowerCase()) : [];
      if (!names.some((n) => SDK_HEADERS.has(n))) return;
      dc.unsubscribe(channel, early);
      setup();
      (globalThis as { [key: symbol]: ((m: unknown) => void) | undefined })[Symbol.for(BUNDLED_CHECK_KEY)]?.(message);
    } catch {
      // A look at a request: it never fails one.
    }
  };
  dc.subscribe(channel, early);
}

type Require = (this: unknown, id: string) => unknown;

/** CommonJS: the first `require` of a claimed package sets up, then goes through the hooks it made. */
function hookRequire(claimed: Set<string>, setup: Setup): void {
  const proto = nodeModule.Module.prototype as unknown as { require: Require };
  const original = proto.require;
  let settled = false;
  const watching: Require = function (this: unknown, id: string) {
    if (!settled && typeof id === "string" && claimed.has(packageOfSpecifier(id) ?? "")) {
      settled = true;
      setup();
      // require-in-the-middle now wraps this function: the call goes through it (and back here, settled).
      if (proto.require !== watching) return proto.require.call(this, id);
    }
    return original.call(this, id);
  };
  Object.defineProperty(watching, "name", { value: original.name, configurable: true });
  proto.require = watching;
}

/** ESM: the hooks' resolve step sees the first module resolved into a claimed package. */
function hookImport(dependencies: HookDependencies, claimed: Set<string>, libraries: LibraryName[], setup: Setup): void {
  const state = autoState();
  if (state.esmHookRegistered) return;
  try {
    if (syncHooksWork()) {
      let settled = false;
      // The one resolve hook zero-code registers here: once the set-up made import-in-the-middle's
      // resolve step, every resolve goes to it (`sync-esm-hooks.ts` registers no second one).
      const watching: ResolveHook = (specifier, context, next) => {
        const through = state.resolveEsm;
        if (through) return through(specifier, context, next);
        if (settled || context.conditions?.includes("require")) return next(specifier, context);
        const resolved = next(specifier, context);
        if (!claimed.has(packageOfUrl(resolved.url) ?? "")) return resolved;
        settled = true;
        setup();
        // import-in-the-middle's resolve step, made by the set-up, resolves this import as it will the next ones.
        const made = state.resolveEsm;
        return made ? made(specifier, context, next) : resolved;
      };
      (nodeModule as unknown as { registerHooks: (hooks: { resolve: ResolveHook }) => void }).registerHooks({ resolve: watching });
      state.startResolveHook = true;
      return;
    }
    if (typeof nodeModule.register !== "function") return;
    state.esmHookRegistered = true;
    const data: LoaderData = {
      include: esmIncludeOf(libraries),
      scope: packagesOf(libraries),
      packages: [...claimed],
      hook: pathToFileURL(dependencies.require.resolve("import-in-the-middle/hook.mjs")).href,
      prelude: `globalThis[Symbol.for(${JSON.stringify(SETUP_KEY)})]?.();\n`,
    };
    nodeModule.register(pathToFileURL(join(dirname(ownFile()), "auto-loader.js")).href, { data });
  } catch {
    // No loader hooks here (a runtime without them): CommonJS is still hooked.
  }
}
