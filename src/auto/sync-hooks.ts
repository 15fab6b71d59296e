import * as nodeModule from "node:module";

/**
 * Whether this runtime has synchronous module hooks (`module.registerHooks`) that run a load
 * hook correctly: from Node 22.22.3, 24.11.1, 25.1.0 and 26 (earlier releases that have
 * `registerHooks` reject the nullish CommonJS `source` a load hook hands on for a `require()`
 * pulled into the ESM graph: nodejs/node#59929); never Bun. The same versions as
 * import-in-the-middle's `supportsSyncHooks` (test/auto/sync-hooks.test.ts holds them together),
 * read here without loading it at start-up.
 */
export function syncHooksWork(version: string = process.versions.node, bun = "bun" in process.versions): boolean {
  if (typeof (nodeModule as { registerHooks?: unknown }).registerHooks !== "function" || bun) return false;
  return versionHasSyncHooks(version);
}

/** Whether a Node version (`major.minor.patch`) is one whose synchronous hooks run a load hook correctly. */
export function versionHasSyncHooks(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  if (major >= 26) return true;
  const from = FIXED_IN[major];
  if (from === undefined) return false;
  return minor > from[0] || (minor === from[0] && patch >= from[1]);
}

/** The first minor and patch of each release line with the fix (lines not named: none, before 26). */
const FIXED_IN: { readonly [major: number]: readonly [minor: number, patch: number] } = { 22: [22, 3], 24: [11, 1], 25: [1, 0] };
