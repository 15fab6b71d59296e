import * as nodeModule from "node:module";
import type { HookDependencies } from "./dependencies.js";

/**
 * Whether this runtime has synchronous module hooks (`module.registerHooks`) that
 * import-in-the-middle runs on correctly (its `supportsSyncHooks`: Node >= 22.22.3, >= 24.11.1;
 * never Bun).
 */
export function syncHooksWork(dependencies: HookDependencies): boolean {
  if (typeof (nodeModule as { registerHooks?: unknown }).registerHooks !== "function" || "bun" in process.versions) return false;
  const { supportsSyncHooks } = dependencies.require("import-in-the-middle/supports-sync-hooks.mjs") as { supportsSyncHooks: () => boolean };
  return supportsSyncHooks();
}
