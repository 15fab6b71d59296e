import { type Context, context, createContextKey, type Span, trace } from "@opentelemetry/api";
import { LinkedContext } from "./linked-context.js";
import { joinableRemoteParent, remoteAnchor } from "../spans/remote-parent.js";
import { ownerOf } from "../spans/span-data.js";

/**
 * Our current span lives under a key of its own as well as (with `otelContext: "shared"`, the
 * default) OTel's active-span key: updates and evaluations find the innermost *observed* span
 * whatever other instrumentations opened inside it.
 */
const OBSERVED_SPAN = createContextKey("evaltrace.observed-span");

/** The innermost observed span of the active context. */
export function currentObservedSpan(ctx: Context = context.active()): Span | undefined {
  return ctx.getValue(OBSERVED_SPAN) as Span | undefined;
}

/** A context whose current observed span is `span` (linked to `ctx`, not a copy of it). */
export function withObservedSpan(ctx: Context, span: Span): Context {
  return new LinkedContext(ctx, OBSERVED_SPAN, span);
}

/** A context with no current observed span: what runs in it starts from its own active span. */
export function withoutObservedSpan(ctx: Context): Context {
  return ctx.deleteValue(OBSERVED_SPAN);
}

/**
 * The span a new observed span hangs under: with a shared context, the active OTel span when
 * evaltrace tracks it (a span the `EvaltraceSpanProcessor` saw: an app's request span, an
 * instrumented LLM call) or a remote parent whose trace an evaltrace caller in another process
 * records (see `remote-parent.ts`), else the innermost observed span; with a separate context,
 * the innermost observed span, else such a remote parent.
 */
export function parentFor(ctx: Context, shared: boolean): Span | undefined {
  const observed = currentObservedSpan(ctx);
  if (!shared) return observed ?? joinableRemoteParent(ctx);
  const active = trace.getSpan(ctx);
  if (active && active !== observed) {
    if (ownerOf(active) !== undefined && active.isRecording()) return active;
    // Observed spans are the active span, so a remote one active now was set inside them.
    if (remoteAnchor(active.spanContext()) !== undefined) return active;
  }
  return observed;
}
