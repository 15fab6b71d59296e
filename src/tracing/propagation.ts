import { type Context, context, type SpanContext, type TextMapGetter, trace } from "@opentelemetry/api";
import { ensureRuntime } from "../runtime/configure.js";
import { currentObservedSpan, withoutObservedSpan } from "./context.js";
import { joinableRemoteParent, remoteAnchor, serializeAnchored } from "../spans/remote-parent.js";
import { W3CTraceContextPropagator } from "../util/w3c-trace-context.js";

/**
 * Request headers as apps hold them: a fetch `Headers`, or a plain object (Node's
 * `IncomingHttpHeaders`, the headers record of `fetch`, undici or axios).
 */
export type HeaderCarrier = Headers | Record<string, string | string[] | number | undefined>;

/** The W3C Trace Context headers {@link injectTraceHeaders} writes. */
interface TraceHeaders {
  /** `00-<trace id>-<span id>-<flags>`: the trace and the span the callee's spans hang under. */
  traceparent: string;
  /** Vendor entries; evaltrace's own (`evaltrace=<span id>`) first. */
  tracestate: string;
}

const TRACEPARENT = "traceparent";
const TRACESTATE = "tracestate";
/** A `traceparent` is 55 characters (later versions may add fields): anything far longer is hostile. */
const MAX_TRACEPARENT_CHARS = 512;
/** W3C caps what is propagated at 512 characters; a receiver may see several headers joined. */
const MAX_TRACESTATE_CHARS = 8192;

const w3c = new W3CTraceContextPropagator();

/**
 * Adds the W3C Trace Context headers (`traceparent`, `tracestate`) of the current observed span
 * to an outgoing request, so that the service called joins this trace: its `observe()` spans
 * (under {@link withRemoteParent}, or the OpenTelemetry propagator its app already uses) become
 * children of the current span, and reach the service as late updates of this trace. Use it
 * where the app has no OpenTelemetry HTTP instrumentation; with one (and an
 * `EvaltraceSpanProcessor`), the instrumentation's own propagation already carries them.
 *
 * Fills `headers` in place (a fetch `Headers` or a plain object) and returns it; without
 * `headers`, returns a new plain object. Outside an observed span, or with tracing off, the
 * headers are returned untouched. Never throws.
 *
 * @example
 * const ask = observe({ type: "tool" }, async (q: string) => {
 *   const res = await fetch("http://search.internal/q", { method: "POST", body: q, headers: injectTraceHeaders({ "content-type": "text/plain" }) });
 *   return res.text();
 * });
 */
export function injectTraceHeaders(): Record<string, string>;
export function injectTraceHeaders<H extends HeaderCarrier>(headers: H): H;
export function injectTraceHeaders(headers?: HeaderCarrier): HeaderCarrier {
  const carrier = headers ?? {};
  try {
    const found = traceHeadersOf(context.active());
    if (found) {
      setHeader(carrier, TRACEPARENT, found.traceparent);
      setHeader(carrier, TRACESTATE, found.tracestate);
    }
  } catch {
    // A carrier that refuses (frozen, a throwing setter): the request goes out as it was.
  }
  return carrier;
}

/**
 * The context a request's handler runs in so that its observed spans join the caller's trace:
 * `base` (the active context by default) with the remote span of the request's `traceparent` as
 * parent. Spans join only a trace that an evaltrace caller records (its `tracestate` carries
 * evaltrace's entry, which {@link injectTraceHeaders} and observed spans propagated by
 * OpenTelemetry write); otherwise, and for missing or malformed headers (an invalid or all-zero
 * id, an oversized value), the handler's spans start a trace of their own. Never throws.
 *
 * @example
 * http.createServer((req, res) => context.with(extractTraceContext(req.headers), () => handle(req, res)));
 */
export function extractTraceContext(headers: HeaderCarrier | null | undefined, base: Context = context.active()): Context {
  try {
    if (headers === null || typeof headers !== "object") return base;
    const traceparent = readHeader(headers, TRACEPARENT, MAX_TRACEPARENT_CHARS);
    if (traceparent === undefined) return base;
    const tracestate = readHeader(headers, TRACESTATE, MAX_TRACESTATE_CHARS);
    const carrier: Record<string, string> = { [TRACEPARENT]: traceparent };
    if (tracestate !== undefined) carrier[TRACESTATE] = tracestate;
    // Cleared so that a handler served inside an observed span (the same process) still joins
    // the request's trace, not the span around it.
    const extracted = w3c.extract(withoutObservedSpan(base), carrier, recordGetter);
    return trace.getSpanContext(extracted)?.isRemote ? extracted : base;
  } catch {
    return base;
  }
}

/**
 * Runs `fn` as the handler of a request whose headers are `headers`: `observe()` spans inside it
 * join the caller's trace as children of the caller's span that made the request (see
 * {@link extractTraceContext} for when they start a trace of their own instead). What this
 * process records of a joined trace goes to the service as late updates (`PUT
 * /v1/traces/:uuid`) of the caller's trace; one that arrives before the caller's trace is retried
 * for up to a minute, then counted in `stats().updatesOrphaned`. Returns what `fn` returns and
 * throws what it throws.
 *
 * @example
 * const answer = observe({ type: "agent" }, async (q: string) => runAgent(q));
 * http.createServer((req, res) => withRemoteParent(req.headers, async () => res.end(await answer(await body(req)))));
 */
export function withRemoteParent<T>(headers: HeaderCarrier | null | undefined, fn: () => T): T {
  let ctx: Context | undefined;
  try {
    // The context manager comes with the runtime: without it, context.with would not carry over awaits.
    ensureRuntime();
    ctx = extractTraceContext(headers);
  } catch {
    ctx = undefined;
  }
  return ctx === undefined ? fn() : context.with(ctx, fn);
}

/** The headers that make a callee join the trace of `ctx`, or undefined outside one. */
function traceHeadersOf(ctx: Context): TraceHeaders | undefined {
  const observed = currentObservedSpan(ctx);
  // Outside an observed span, a request being served for a remote caller passes its trace on.
  const sc: SpanContext | undefined = (observed ?? joinableRemoteParent(ctx))?.spanContext();
  if (!sc || !validIds(sc)) return undefined;
  const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, "0");
  const anchor = observed ? sc.spanId : (remoteAnchor(sc) ?? sc.spanId);
  return { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}`, tracestate: serializeAnchored(anchor, sc.traceState) };
}

function validIds(sc: SpanContext): boolean {
  return /^[0-9a-f]{32}$/.test(sc.traceId) && !/^0+$/.test(sc.traceId) && /^[0-9a-f]{16}$/.test(sc.spanId) && !/^0+$/.test(sc.spanId);
}

/** Reads a header by its lower-case name from either carrier; several values join with commas (W3C). */
function readHeader(headers: HeaderCarrier, name: string, maxChars: number): string | undefined {
  let value: unknown;
  if (isFetchHeaders(headers)) value = headers.get(name);
  else {
    value = headers[name];
    if (value === undefined) {
      // Plain objects written by hand may use any case ("Traceparent").
      for (const key of Object.keys(headers)) {
        if (key.length === name.length && key.toLowerCase() === name) {
          value = headers[key];
          break;
        }
      }
    }
  }
  if (Array.isArray(value)) {
    // Several traceparent headers are invalid (W3C); several tracestate headers combine.
    if (name === TRACEPARENT && value.length !== 1) return undefined;
    value = value.every((v) => typeof v === "string") ? value.join(",") : undefined;
  }
  if (typeof value !== "string" || value.length === 0 || value.length > maxChars) return undefined;
  return value;
}

function setHeader(headers: HeaderCarrier, name: string, value: string): void {
  if (isFetchHeaders(headers)) {
    headers.set(name, value);
    return;
  }
  for (const key of Object.keys(headers)) {
    if (key !== name && key.length === name.length && key.toLowerCase() === name) delete headers[key];
  }
  headers[name] = value;
}

function isFetchHeaders(headers: HeaderCarrier): headers is Headers {
  return typeof (headers as Headers).get === "function" && typeof (headers as Headers).set === "function";
}

const recordGetter: TextMapGetter<Record<string, string>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
