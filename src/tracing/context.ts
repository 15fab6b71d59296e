import { type Context, context, createContextKey, type Span } from "@opentelemetry/api";

/**
 * Our current span lives under a key of its own rather than OTel's active-span key, so that
 * an app's own OTel instrumentations (HTTP, DB) never get a parent their backend cannot see,
 * and our hierarchy skips over their spans.
 */
const OBSERVED_SPAN = createContextKey("evaltrace.observed-span");

/** The innermost observed span of the active context. */
export function currentObservedSpan(ctx: Context = context.active()): Span | undefined {
  return ctx.getValue(OBSERVED_SPAN) as Span | undefined;
}

/** A context whose current observed span is `span`. */
export function withObservedSpan(ctx: Context, span: Span): Context {
  return ctx.setValue(OBSERVED_SPAN, span);
}
