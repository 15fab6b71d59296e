import { type Context, createContextKey, type Span } from "@opentelemetry/api";
import { wireBridgeStartHook } from "../bridge/start-hooks.js";

/**
 * Told of the spans of other instrumentations that start, and that an EvaltraceSpanProcessor
 * tracks, in a context carrying it: an integration that runs a library's call in such a context
 * gets the spans the library records for that call (to finish what the library leaves open).
 */
export interface SpanWatch {
  started(span: Span): void;
}

// Symbol.for underneath: the ESM and CommonJS copies of the package share the key.
const WATCH = createContextKey("evaltrace.spanWatch");

/** The watch a context carries, if any. */
function spanWatchOf(ctx: Context): SpanWatch | undefined {
  return ctx.getValue(WATCH) as SpanWatch | undefined;
}

let wired = false;

/**
 * `ctx` with `watch` told of the spans started in it (none: without the one it carried). The
 * bridge's start hook that tells it is wired on first use.
 */
export function watchSpans(ctx: Context, watch: SpanWatch | undefined): Context {
  if (!watch) return ctx.deleteValue(WATCH);
  if (!wired) {
    wired = true;
    wireBridgeStartHook("integrations.spanWatch", { tracked: (span, parentContext) => spanWatchOf(parentContext)?.started(span) });
  }
  return ctx.setValue(WATCH, watch);
}
