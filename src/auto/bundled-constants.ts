/** The global through which zero-code's early watch (on-first-import.ts) hands the request that set it up to bundled-sdk.ts's watch. */
export const BUNDLED_CHECK_KEY = "evaltrace.auto.bundledCheck";
