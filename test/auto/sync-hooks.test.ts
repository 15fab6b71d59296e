import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { syncHooksWork, versionHasSyncHooks } from "../../src/auto/sync-hooks.js";

// Zero-code's start-up reads the versions whose synchronous module hooks run a load hook
// correctly without loading import-in-the-middle's check (src/auto/sync-hooks.ts): the two must
// agree, on every runtime the suite runs on (Node 20, 22, 24; Bun has none).
describe("synchronous module hooks, by Node version", () => {
  it("agree with import-in-the-middle's supportsSyncHooks on this runtime", async () => {
    const require = createRequire(import.meta.url);
    const iitm = require.resolve("import-in-the-middle/supports-sync-hooks.mjs");
    const { supportsSyncHooks } = (await import(iitm)) as { supportsSyncHooks: () => boolean };
    const hasRegisterHooks = typeof (await import("node:module") as { registerHooks?: unknown }).registerHooks === "function";
    expect(syncHooksWork()).toBe(hasRegisterHooks && !("bun" in process.versions) && supportsSyncHooks());
  });

  it("from 22.22.3, 24.11.1, 25.1.0 and 26 on; never on 20, 23 or earlier releases of each line", () => {
    const cases: [string, boolean][] = [
      ["20.20.2", false],
      ["22.15.0", false],
      ["22.22.2", false],
      ["22.22.3", true],
      ["22.23.3", true],
      ["23.11.0", false],
      ["24.11.0", false],
      ["24.11.1", true],
      ["24.12.0", true],
      ["25.0.0", false],
      ["25.1.0", true],
      ["26.0.0", true],
      ["27.1.0-nightly2026", true],
    ];
    for (const [version, expected] of cases) expect(versionHasSyncHooks(version), version).toBe(expected);
  });
});
