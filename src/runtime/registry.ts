import type { Runtime } from "./runtime.js";
import { VERSION } from "../version.js";

/**
 * The process-wide state of the SDK. Every copy of the package in a process (the ESM and the
 * CommonJS build, every subpath bundle) reaches the same object through a global symbol, so
 * `configure()` in one is seen by all: one runtime per process, whatever the module format.
 */
export interface Registry {
  readonly version: string;
  /** The runtime `configure()` (or first use) made. */
  current: Runtime | undefined;
  /** Runtimes a later `configure()` replaced, while they still have work. */
  retired: Runtime[];
  contextReady: boolean;
  /** An EvaltraceSpanProcessor exists: observed spans may share the OTel context. */
  bridged: boolean;
  warnedNoKey: boolean;
  hooksInstalled: boolean;
}

const KEY = Symbol.for("evaltrace.registry");

let mine: Registry | undefined;

function fresh(): Registry {
  return { version: VERSION, current: undefined, retired: [], contextReady: false, bridged: false, warnedNoKey: false, hooksInstalled: false };
}

/**
 * The registry of this process. A copy of another version (two versions installed side by
 * side) gets a registry of its own, with a warning: its runtime's internals may differ, so the
 * two cannot share one, and each needs its own `configure()`.
 */
export function registry(): Registry {
  if (mine) return mine;
  const global = globalThis as { [KEY]?: Registry };
  const existing = global[KEY];
  if (!existing) {
    mine = fresh();
    Object.defineProperty(global, KEY, { value: mine, enumerable: false, configurable: true, writable: false });
    return mine;
  }
  if (existing.version === VERSION) {
    mine = existing;
    return mine;
  }
  mine = fresh();
  console.warn(
    `[evaltrace] two versions of evaltrace are loaded (${existing.version} and ${VERSION}): each keeps its own configuration and queue. ` +
      "Deduplicate them (npm dedupe, or one version in package.json) so that configure() applies to all.",
  );
  return mine;
}

/** The current runtime and every replaced one still delivering, current first. */
export function allRuntimes(): Runtime[] {
  const reg = registry();
  reg.retired = reg.retired.filter((rt) => !rt.isIdle && !rt.isStopped);
  return reg.current ? [reg.current, ...reg.retired] : [...reg.retired];
}
