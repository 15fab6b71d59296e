import { processWide } from "../process-wide.js";
import type { LibraryName } from "./libraries.js";

/**
 * What zero-code instrumentation shares across every copy of the package (the `--import` ESM
 * build, the `-r` CommonJS build, and `instrument()` called from either).
 */
export interface AutoState {
  /** Libraries whose instrumentation is on. */
  enabled: Set<LibraryName>;
  /** Libraries whose instrumentation exists (on or off): each is made once per process. */
  created: Set<LibraryName>;
  /** Libraries a hooked module of which has loaded (so their own spans cover nested model calls). */
  loaded: Set<LibraryName>;
  /** The app called `instrument()`: zero-code's set-up from the environment then leaves the libraries as it said. */
  calledInstrument: boolean;
  /** The ESM loader hook was registered. */
  esmHookRegistered: boolean;
  /** Libraries whose requests were seen from a bundled copy, never loaded through the hooks (`bundled-sdk.ts`). */
  bundled: Set<LibraryName>;
  /** The watch for bundled copies is on. */
  bundledWatch: boolean;
  /** The synchronous ESM hooks' resolve step, once made (`module.registerHooks`, `sync-esm-hooks.ts`). */
  resolveEsm?: ResolveHook;
  /** Zero-code's start-up resolve hook is registered (`on-first-import.ts`): it hands every resolve to {@link resolveEsm} once that is made. */
  startResolveHook?: boolean;
}

/** What a resolve step returns. */
export type Resolved = { url: string; format?: string | null; shortCircuit?: boolean };

/** A synchronous resolve hook of `module.registerHooks`. */
export type ResolveHook = (specifier: string, context: { conditions?: readonly string[]; parentURL?: string }, next: (specifier: string, context?: object) => Resolved) => Resolved;

/** The process-wide state of zero-code instrumentation. */
export function autoState(): AutoState {
  return processWide<AutoState>("auto", () => ({ enabled: new Set(), created: new Set(), loaded: new Set(), calledInstrument: false, esmHookRegistered: false, bundled: new Set(), bundledWatch: false }));
}

/** Whether `library` is instrumented now (a library turned off later stops recording at once). */
export function isOn(library: LibraryName): boolean {
  return autoState().enabled.has(library);
}
