import { normalize } from "node:path";
import { processWide } from "../process-wide.js";
import { packageOfSpecifier } from "./claims.js";
import { hookDependencies } from "./dependencies.js";
import { esmTargets, packageVersion, versionSatisfies, type EsmTarget } from "./esm-targets.js";
import { onFirstClaimedRequire } from "./require-trigger.js";

type OnModule = (exports: unknown, name: string, baseDir?: string) => unknown;
type HookClass = new (modules: string[] | null, options: { internals: boolean }, onModule: OnModule) => unknown;

/** Which module hooks are made, for the process (every copy of the package shares them: none is made twice). */
const made = () => processWide("auto.moduleHooks", () => ({ require: false, importInTheMiddle: false, esmPackages: new Set<string>() }));

/** A package of the hooks, from `@evaltrace/auto`. */
function hookPackage<T>(name: string): T {
  const found = hookDependencies();
  if (!found) throw new Error(`${name} is not installed (it comes with @evaltrace/auto)`);
  return found.require(name) as T;
}

/**
 * A loaded module handed to the hooks of its targets, as `@opentelemetry/instrumentation` did:
 * `name` is the package's name for its main entry, else `<package>/<path>` of a file in it, and
 * `baseDir` its package's folder, whose version each target's range must accept. Each hook gets
 * what the one before it returned.
 */
const onModule: OnModule = (exports, name, baseDir) => {
  if (!baseDir) return exports;
  const packageName = packageOfSpecifier(name.replace(/\\/g, "/"));
  const list = packageName === undefined ? undefined : esmTargets().byPackage.get(packageName);
  if (!list) return exports;
  const main = name.replace(/\\/g, "/") === packageName;
  const file = normalize(name);
  const version = packageVersion(baseDir);
  let current = exports;
  for (const target of list) {
    if (main ? target.file !== undefined : target.file === undefined || normalize(target.file) !== file) continue;
    if (versionSatisfies(version, target.versions)) current = target.onLoad(current as Record<string, unknown>) ?? current;
  }
  return current;
};

/**
 * CommonJS: one require-in-the-middle hook over every `require`, which hands the modules of the
 * targets' packages (`packages`) to them; made at the first `require` that may reach one of them
 * (`require-trigger.ts`), so an app that never requires them never loads it.
 */
export function hookRequire(packages: readonly string[]): void {
  const state = made();
  if (state.require) {
    // The hook is asked for (or made): these packages' requires make it too.
    onFirstClaimedRequire(packages);
    return;
  }
  state.require = true;
  onFirstClaimedRequire(packages, () => {
    const { Hook } = hookPackage<{ Hook: HookClass }>("require-in-the-middle");
    new Hook(null, { internals: true }, onModule);
  });
}

/**
 * import-in-the-middle's hook for the targets' packages: where its wrapper modules hand ES
 * modules over (Node's `module.register` hooks thread, and a claimed module the synchronous
 * hooks give it: `sync-esm-hooks.ts`). Made for the packages of `targets`, once each.
 */
export function hookImportInTheMiddle(targets: readonly EsmTarget[]): void {
  const state = made();
  const packages = [...new Set(targets.map((t) => t.packageName))].filter((p) => !state.esmPackages.has(p));
  if (packages.length === 0) return;
  for (const p of packages) state.esmPackages.add(p);
  const { Hook } = hookPackage<{ Hook: HookClass }>("import-in-the-middle");
  new Hook(packages, { internals: true }, onModule);
}

/** ES modules reach the hooks through import-in-the-middle from now on (every target known, and those added later). */
export function useImportInTheMiddle(): void {
  const state = made();
  if (state.importInTheMiddle) return;
  state.importInTheMiddle = true;
  hookImportInTheMiddle([...esmTargets().byPackage.values()].flat());
}

/** Whether {@link useImportInTheMiddle} was called. */
export const usesImportInTheMiddle = (): boolean => made().importInTheMiddle;
