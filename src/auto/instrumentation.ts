import { createRequire } from "node:module";
import type * as OtelInstrumentation from "@opentelemetry/instrumentation";
import type { InstrumentationBase, InstrumentationModuleDefinition } from "@opentelemetry/instrumentation";
import { VERSION } from "../version.js";
import type { LibraryName } from "./libraries.js";
import { ownFile } from "./load.js";
import { autoState } from "./state.js";

/**
 * `@opentelemetry/instrumentation`, loaded when the first library is instrumented, not when
 * `evaltrace` is imported (`instrument` is exported from the main entry, and importing evaltrace
 * must stay cheap and free of side effects: the hooks' module graph is some thirty files).
 */
function otelInstrumentation(): typeof OtelInstrumentation {
  return createRequire(ownFile())("@opentelemetry/instrumentation") as typeof OtelInstrumentation;
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
  /** Files inside the package (`@langchain/core/dist/callbacks/manager.cjs`) and what to do when each loads. */
  files?: { path: string; onLoad: (exports: Record<string, unknown>) => unknown }[];
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
    } catch {
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
      return [new InstrumentationNodeModuleDefinition(hook.packageName, hook.versions, hook.onLoad ? guarded(hook.onLoad) : undefined, hook.onLoad ? unpatch : undefined, files)];
    }
  }
  return new LibraryInstrumentation();
}
