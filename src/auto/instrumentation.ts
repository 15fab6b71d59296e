import { currentRuntime } from "../runtime/configure.js";
import { reportInternalError } from "../util/internal-errors.js";
import type { LibraryName } from "./libraries.js";
import { hookDependencies } from "./dependencies.js";
import { autoState } from "./state.js";
import { addEsmTargets, type EsmTarget } from "./esm-targets.js";
import { hookImportInTheMiddle, hookRequire, usesImportInTheMiddle } from "./module-hooks.js";
import { onFirstClaimedRequire } from "./require-trigger.js";
import type { HookShape } from "./hook-shapes.js";

/** A package of the hooks, from `@evaltrace/auto` (`instrument()` checks it is there before any hook is made). */
function hookPackage<T>(name: string): T {
  const found = hookDependencies();
  if (!found) throw new Error(`${name} is not installed (it comes with @evaltrace/auto)`);
  return found.require(name) as T;
}

/** How one library is hooked: the modules (a package, or files in it) and what to do when one loads. */
export interface LibraryHook {
  library: LibraryName;
  /** The package name, as `require` / `import` name it. */
  packageName: string;
  /** Versions hooked (semver ranges). */
  versions: string[];
  /** Called with the package's exports when its main entry loads (ESM namespace or CommonJS exports). */
  onLoad?: (exports: Record<string, unknown>) => unknown;
  /** The exports `onLoad` replaces (assigns) rather than patches: an ES module makes them replaceable (`esm-handoff.ts`). */
  replaces?: string[];
  /** Files inside the package (`@langchain/core/dist/callbacks/manager.cjs`) and what to do when each loads. */
  files?: { path: string; onLoad: (exports: Record<string, unknown>) => unknown; replaces?: string[] }[];
  /**
   * Also hook `files` under `require` by their names. OpenTelemetry's require hook gives up on
   * every file of a package whose main entry does not resolve (the MCP SDK's `require` export
   * of "." names a file it does not ship); require-in-the-middle with the files listed matches
   * them by name instead.
   */
  requireFilesByName?: boolean;
  /** Other packages of the same library (a framework spread over packages), each hooked when its main entry loads. */
  modules?: { packageName: string; versions: string[]; onLoad: (exports: Record<string, unknown>) => unknown; replaces?: string[] }[];
}

type OnLoad = (exports: Record<string, unknown>) => unknown;
type Guard = (onLoad: OnLoad) => (exports: unknown) => unknown;

/** The require-in-the-middle hooks made for `requireFilesByName`, one per library, for the process. */
const namedFileHooks = new Set<LibraryName>();

function hookFilesByName(library: LibraryName, shape: HookShape, patch: (path: string) => (exports: unknown) => unknown): void {
  if (namedFileHooks.has(library) || !shape.files?.length) return;
  namedFileHooks.add(library);
  // require-in-the-middle names a file inside a package without its extension (and a folder's
  // index.js by the folder), as its own `resolveModuleName` does.
  const byName = new Map(shape.files.map((f) => [f.path.replace(/([/\\]index)?(\.js)?$/, ""), patch(f.path)]));
  // Made with the require hook, at the first require that may reach the package (`require-trigger.ts`).
  onFirstClaimedRequire([shape.packageName], () => {
    const { Hook } = hookPackage<typeof import("require-in-the-middle")>("require-in-the-middle");
    new Hook([...byName.keys()], { internals: true }, (exports, name) => (byName.get(name)?.(exports) ?? exports) as typeof exports);
  });
}

/** The ES modules `shape` targets (hooked through `esm-handoff.ts` where Node has synchronous hooks), each with its guarded hook. */
function esmTargetsOf(shape: HookShape, hookOf: (pick: (hook: LibraryHook) => OnLoad | undefined) => (exports: unknown) => unknown): EsmTarget[] {
  const targets: EsmTarget[] = [];
  const { packageName, versions } = shape;
  if (shape.entry) targets.push({ packageName, versions, replaces: shape.replaces ?? [], onLoad: hookOf((hook) => hook.onLoad) });
  for (const f of shape.files ?? []) targets.push({ packageName, file: f.path, versions, replaces: f.replaces ?? [], onLoad: hookOf((hook) => hook.files?.find((h) => h.path === f.path)?.onLoad) });
  for (const m of shape.modules ?? []) targets.push({ packageName: m.packageName, versions: m.versions, replaces: m.replaces ?? [], onLoad: hookOf((hook) => hook.modules?.find((h) => h.packageName === m.packageName)?.onLoad) });
  return targets;
}

/** One library's hooks, made and not yet on: {@link LibraryInstrumentation.enable} turns them on, for the process. */
export interface LibraryInstrumentation {
  library: LibraryName;
  /** The modules hooked and each one's guarded hook (which never throws into the loading app). */
  targets: EsmTarget[];
  enable(): void;
}

/**
 * One library's hooks: require-in-the-middle's for CommonJS (one hook over every `require`:
 * `module-hooks.ts`), the namespace hand-off of `esm-handoff.ts` for ES modules where Node has
 * synchronous hooks, and import-in-the-middle's where its wrapper modules hand them over, each
 * module's patch as the hook, as `@opentelemetry/instrumentation` made them before (module
 * names, version ranges). The targets are made from `shape` (data); the hook code (`code`) is
 * loaded when the first of them loads. A patch only touches prototypes (or, where unavoidable,
 * the exports object it returns) and never throws into the loading app.
 */
export function createInstrumentation(library: LibraryName, shape: HookShape, code: () => LibraryHook | undefined): LibraryInstrumentation {
  const guarded: Guard = (onLoad) => (exports) => {
    if (exports === null || (typeof exports !== "object" && typeof exports !== "function")) return exports;
    autoState().loaded.add(library);
    try {
      const replaced = onLoad(exports as Record<string, unknown>);
      return replaced ?? exports;
    } catch (error) {
      // The module loads unpatched; counted and logged.
      reportInternalError(`zero-code instrumentation of ${shape.packageName}`, error, currentRuntime()?.logger);
      return exports;
    }
  };
  let loaded: LibraryHook | undefined | null;
  const hookOf = (pick: (hook: LibraryHook) => OnLoad | undefined) =>
    guarded((exports) => {
      if (loaded === undefined) loaded = code() ?? null;
      const onLoad = loaded ? pick(loaded) : undefined;
      if (!onLoad) throw new Error(`the hook code of ${library} could not be loaded`);
      return onLoad(exports);
    });
  const targets = esmTargetsOf(shape, hookOf);
  let enabled = false;
  return {
    library,
    targets,
    enable() {
      if (enabled) return;
      enabled = true;
      addEsmTargets(targets);
      hookRequire([...new Set(targets.map((t) => t.packageName))]);
      if (usesImportInTheMiddle()) hookImportInTheMiddle(targets);
      if (shape.requireFilesByName) hookFilesByName(library, shape, (path) => hookOf((hook) => hook.files?.find((h) => h.path === path)?.onLoad));
    },
  };
}
