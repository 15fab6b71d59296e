import type { Context, SpanContext } from "@opentelemetry/api";
import { trace } from "@opentelemetry/api";

/**
 * The two shapes of an OpenTelemetry JS span: SDK 2 (`instrumentationScope`, `parentSpanContext`)
 * and SDK 1.x (`instrumentationLibrary`, `parentSpanId`), which an app's own provider may still
 * be (Firebase Genkit's `enableTelemetry` builds one). Every read of a span's scope or parent
 * that may meet an app's span goes through here.
 */
interface EitherShape {
  instrumentationScope?: { name: string } | undefined;
  instrumentationLibrary?: { name: string } | undefined;
  parentSpanContext?: SpanContext | undefined;
  parentSpanId?: string | undefined;
}

/** Where a span of SDK 1.x keeps its parent's context (it has the parent's id only): the bridge sets it when the span starts. */
export const SDK1_PARENT_SLOT = Symbol.for("evaltrace.sdk1Parent");

/** The name of the instrumentation that made a span (`instrumentationScope`, SDK 1.x `instrumentationLibrary`). */
export function scopeNameOf(span: object): string | undefined {
  const s = span as EitherShape;
  return (s.instrumentationScope ?? s.instrumentationLibrary)?.name;
}

/**
 * A span's parent: SDK 2's `parentSpanContext`; for an SDK 1.x span, the context remembered
 * when it started ({@link rememberSdk1Parent}), else one made of its `parentSpanId` (not remote).
 */
export function parentSpanContextOf(span: object): SpanContext | undefined {
  const s = span as EitherShape & { [SDK1_PARENT_SLOT]?: SpanContext };
  if (s.parentSpanContext !== undefined) return s.parentSpanContext;
  const id = s.parentSpanId;
  if (typeof id !== "string" || id === "") return undefined;
  const remembered = s[SDK1_PARENT_SLOT];
  if (remembered !== undefined) return remembered;
  const own = (span as { spanContext?: () => SpanContext }).spanContext?.();
  return { traceId: own?.traceId ?? "", spanId: id, traceFlags: own?.traceFlags ?? 0, isRemote: false };
}

/**
 * For a span of SDK 1.x starting (it names its parent by id only): keeps the parent's whole
 * context, from the context it starts in, so that a remote parent is known as one. Nothing for
 * an SDK 2 span.
 */
export function rememberSdk1Parent(span: object, parentContext: Context): void {
  const s = span as EitherShape & { [SDK1_PARENT_SLOT]?: SpanContext };
  if (s.parentSpanContext !== undefined || typeof s.parentSpanId !== "string") return;
  const parent = trace.getSpanContext(parentContext);
  if (parent !== undefined && parent.spanId === s.parentSpanId) s[SDK1_PARENT_SLOT] = parent;
}
