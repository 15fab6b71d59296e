import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Type tests (test/**/*.test-d.ts, expectTypeOf and @ts-expect-error): tsc runs them with the
    // rest, and a type that drifts fails the run.
    typecheck: { enabled: true, include: ["test/types/**/*.test-d.ts"], tsconfig: "./test/types/tsconfig.json" },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Prints, after the run, every test file that did not run here and why (nothing skipped silently).
    globalSetup: ["test/helpers/skip-summary.ts"],
    // Polls wait for what a browser or another process does: on a loaded 2-core machine (the
    // suite beside CI's other runtimes) a second is not always enough.
    expect: { poll: { timeout: 10_000 } },
    // Our own SDK's tests run the emulator in strict mode, so that what we send stays exactly on
    // the spec; emulator tests of the lenient default pass `strict: false`.
    env: { EVALTRACE_DEV_STRICT: "1" },
  },
});
