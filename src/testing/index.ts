// evaltrace/testing: test what an agent did, from the traces it produced (docs/testing.md).
import type { TraceMatchers } from "./matchers.js";

export type { CapturedSpan, CapturedStatus, CapturedTrace, JsonObject } from "./captured.js";
export { type CaptureOptions, captureTraces, type TraceCapture } from "./capture.js";
export { type MatcherContext, type MatcherResult, matchers, type TraceMatcherFunctions, type TraceMatchers } from "./matchers.js";
export { renderTraces } from "./render.js";
export type { AsymmetricMatcherLike, SpanQuery, TextQuery } from "./span-query.js";

// Vitest's `expect(...)` knows the matchers once `expect.extend(matchers)` ran (a setup file).
// For Jest, see docs/testing.md.
declare module "vitest" {
  // biome-ignore lint/suspicious/noExplicitAny: the declaration must repeat Vitest's own `T = any`.
  interface Matchers<T = any> extends TraceMatchers<T> {}
}
