import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Our own SDK's tests run the emulator in strict mode, so that what we send stays exactly on
    // the spec; emulator tests of the lenient default pass `strict: false`.
    env: { EVALTRACE_DEV_STRICT: "1" },
  },
});
