import type * as OtelInstrumentation from "@opentelemetry/instrumentation";
import type { InstrumentationBase, InstrumentationModuleDefinition } from "@opentelemetry/instrumentation";
import { currentRuntime } from "../runtime/configure.js";
import { reportInternalError } from "../util/internal-errors.js";
import { VERSION } from "../version.js";
import type { LibraryName } from "./libraries.js";
import { hookDependencies } from "./dependencies.js";
import { autoState } from "./state.js";
import { addEsmTargets, type EsmTarget } from "./esm-targets.js";

/** A package of the hooks, from `@evaltrace/auto` (`instrument()` checks it is there before any hook is made). */
function hookPackage<T>(name: string): T {
  const found = hookDependencies();
  if (!found) throw new Error(`${name} is not installed (it comes with @evaltrace/auto)`);
  return found.require(name) as T;
}

/**
 * `@opentelemetry/instrumentation`, loaded when the first library is instrumented (its module
 * graph is some thirty files).
 */
function otelInstrumentation(): typeof OtelInstrumentation {
  return hookPackage<typeof OtelInstrumentation>("@opentelemetry/instrumentation");
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

/** The require-in-the-middle hooks made for `requireFilesByName`, one per library, for the process. */
const namedFileHooks = new Set<LibraryName>();

function hookFilesByName(hook: LibraryHook, patch: (onLoad: (exports: Record<string, unknown>) => unknown) => (exports: unknown) => unknown): void {
  if (namedFileHooks.has(hook.library) || !hook.files?.length) return;
  namedFileHooks.add(hook.library);
  const { Hook } = hookPackage<typeof import("require-in-the-middle")>("require-in-the-middle");
  // require-in-the-middle names a file inside a package without its extension (and a folder's
  // index.js by the folder), as its own `resolveModuleName` does.
  const byName = new Map(hook.files.map((f) => [f.path.replace(/([/\\]index)?(\.js)?$/, ""), patch(f.onLoad)]));
  new Hook([...byName.keys()], { internals: true }, (exports, name) => (byName.get(name)?.(exports) ?? exports) as typeof exports);
}

/** The ES modules `hook` targets (hooked through `esm-handoff.ts` where Node has synchronous hooks), each with its guarded hook. */
function esmTargetsOf(hook: LibraryHook, guarded: (onLoad: (exports: Record<string, unknown>) => unknown) => (exports: unknown) => unknown): EsmTarget[] {
  const targets: EsmTarget[] = [];
  const { packageName, versions } = hook;
  if (hook.onLoad) targets.push({ packageName, versions, replaces: hook.replaces ?? [], onLoad: guarded(hook.onLoad) });
  for (const f of hook.files ?? []) targets.push({ packageName, file: f.path, versions, replaces: f.replaces ?? [], onLoad: guarded(f.onLoad) });
  for (const m of hook.modules ?? []) targets.push({ packageName: m.packageName, versions: m.versions, replaces: m.replaces ?? [], onLoad: guarded(m.onLoad) });
  return targets;
}

/**
 * One library's OpenTelemetry instrumentation: the standard require-in-the-middle (CommonJS) and
 * import-in-the-middle (ESM) hooks of `@opentelemetry/instrumentation`, with our patch as the
 * hook. A patch only touches prototypes (or, where unavoidable, the exports object it returns)
 * and never throws into the loading app.
 */
export function createInstrumentation(hook: LibraryHook): InstrumentationBase {
  const { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } = otelInstrumentation();
  const guarded = (onLoad: (exports: Record<string, unknown>) => unknown) => (exports: unknown) => {
    if (exports === null || (typeof exports !== "object" && typeof exports !== "function")) return exports;
    autoState().loaded.add(hook.library);
    try {
      const replaced = onLoad(exports as Record<string, unknown>);
      return replaced ?? exports;
    } catch (error) {
      // The module loads unpatched; counted and logged.
      reportInternalError(`zero-code instrumentation of ${hook.packageName}`, error, currentRuntime()?.logger);
      return exports;
    }
  };
  const unpatch = (exports: unknown) => exports;
  class LibraryInstrumentation extends InstrumentationBase {
    constructor() {
      super(`evaltrace-auto-${hook.library}`, VERSION, { enabled: false });
    }

    protected init(): InstrumentationModuleDefinition[] {
      const files = (hook.files ?? []).map((f) => new InstrumentationNodeModuleFile(f.path, hook.versions, guarded(f.onLoad), unpatch));
      const others = (hook.modules ?? []).map((m) => new InstrumentationNodeModuleDefinition(m.packageName, m.versions, guarded(m.onLoad), unpatch));
      return [new InstrumentationNodeModuleDefinition(hook.packageName, hook.versions, hook.onLoad ? guarded(hook.onLoad) : undefined, hook.onLoad ? unpatch : undefined, files), ...others];
    }
  }
  const made = new LibraryInstrumentation();
  addEsmTargets(esmTargetsOf(hook, guarded));
  if (hook.requireFilesByName) {
    const enable = made.enable.bind(made);
    made.enable = () => {
      enable();
      hookFilesByName(hook, guarded);
    };
  }
  return made;
}
