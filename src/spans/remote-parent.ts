import { type Context, type Span, type SpanContext, type TraceState, trace } from "@opentelemetry/api";
import { setParentOverride } from "./span-data.js";
import { parentSpanContextOf } from "./span-shape.js";
import { keptShapes } from "./kept-shapes.js";
import { TraceState as W3CTraceState } from "../util/trace-state.js";

/**
 * The W3C `tracestate` entry evaltrace adds to what a process propagates: the id of the nearest
 * span of the trace that evaltrace records (the span itself for `observe()` spans; for spans of
 * other instrumentations, such as an HTTP client span, their nearest observed ancestor). A callee
 * joins the caller's trace only when the entry is there: it says that the caller records this
 * trace, so the late updates sent to it will find it, and which span to hang under (the HTTP
 * client span the `traceparent` names is left out of the caller's trace).
 */
export const TRACESTATE_KEY = "evaltrace";

const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_SPAN_ID = "0000000000000000";
/** Longest `tracestate` W3C lets a vendor propagate. */
const MAX_TRACESTATE_CHARS = 512;

/**
 * The span a remote parent context asks spans to hang under: its anchor entry when valid, else
 * undefined (the remote caller does not record the trace with evaltrace: do not join it).
 */
export function remoteAnchor(sc: SpanContext | undefined): string | undefined {
  if (!sc?.isRemote) return undefined;
  let anchor: string | undefined;
  try {
    anchor = sc.traceState?.get(TRACESTATE_KEY);
  } catch {
    return undefined;
  }
  return anchor !== undefined && SPAN_ID.test(anchor) && anchor !== ZERO_SPAN_ID ? anchor : undefined;
}

/**
 * The remote parent of a context, when spans started in it should join a trace recorded by an
 * evaltrace caller in another process: the active span is remote (from `extractTraceContext`,
 * `withRemoteParent` or the app's own `propagation.extract`) and carries the anchor (whether it
 * is sampled is the sampler's to say, from its flags).
 */
export function joinableRemoteParent(ctx: Context): Span | undefined {
  const span = trace.getSpan(ctx);
  if (span === undefined) return undefined;
  const sc = span.spanContext();
  return remoteAnchor(sc) !== undefined ? span : undefined;
}

/**
 * For a span starting under a remote parent that an evaltrace caller records: points it at the
 * caller's anchor span (when the `traceparent` named a span left out of the caller's trace) and
 * says that its trace belongs to the caller (what this process records of it goes out as late
 * updates). False for any other span: it is recorded as usual.
 */
export function joinRemoteParent(span: object): boolean {
  const parent = parentSpanContextOf(span);
  const anchor = remoteAnchor(parent);
  if (anchor === undefined) return false;
  if (anchor !== parent!.spanId) setParentOverride(span, anchor);
  return true;
}

/** Whether a span's parent is a remote span of a trace an evaltrace caller records. */
export function hasJoinableRemoteParent(span: object): boolean {
  return remoteAnchor(parentSpanContextOf(span)) !== undefined;
}

/**
 * Makes a span of ours carry the anchor entry naming itself, so that whatever propagates its
 * context (the app's `propagation.inject`, an HTTP instrumentation's client span under it) tells
 * the callee which span to join. Called when the span starts, before anyone can propagate it.
 */
export function anchorTraceState(span: { spanContext(): SpanContext }): void {
  const sc = span.spanContext();
  sc.traceState = new AnchoredTraceState(sc.spanId, sc.traceState);
}

/** The `tracestate` header naming `anchor`, over the entries of `inherited`. */
export function serializeAnchored(anchor: string, inherited: TraceState | undefined): string {
  return new AnchoredTraceState(anchor, inherited).serialize();
}

/**
 * A `tracestate` whose evaltrace entry names one span, over the entries it inherited. Lazy: a span
 * pays one small object, and the string is built only if someone propagates it.
 */
class AnchoredTraceState implements TraceState {
  private readonly rest: TraceState | undefined;

  constructor(
    private readonly anchor: string,
    inherited: TraceState | undefined,
  ) {
    // Our own entry of an ancestor is replaced, not stacked.
    this.rest = inherited instanceof AnchoredTraceState ? inherited.rest : inherited;
    keptShapes.traceState = this;
  }

  get(key: string): string | undefined {
    return key === TRACESTATE_KEY ? this.anchor : this.rest?.get(key);
  }

  set(key: string, value: string): TraceState {
    if (key === TRACESTATE_KEY) return SPAN_ID.test(value) ? new AnchoredTraceState(value, this.rest) : this;
    return new AnchoredTraceState(this.anchor, (this.rest ?? new W3CTraceState()).set(key, value));
  }

  unset(key: string): TraceState {
    if (key === TRACESTATE_KEY) return this.rest?.unset(TRACESTATE_KEY) ?? new W3CTraceState();
    return this.rest ? new AnchoredTraceState(this.anchor, this.rest.unset(key)) : this;
  }

  /** Our entry first (W3C: a vendor's updated entry moves to the front), then what fits of the rest. */
  serialize(): string {
    let out = `${TRACESTATE_KEY}=${this.anchor}`;
    const rest = this.rest?.unset(TRACESTATE_KEY).serialize();
    if (!rest) return out;
    for (const entry of rest.split(",")) {
      if (out.length + 1 + entry.length > MAX_TRACESTATE_CHARS) break;
      out += `,${entry}`;
    }
    return out;
  }
}
