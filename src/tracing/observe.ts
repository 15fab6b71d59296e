import { type Attributes, type Context, context, type HrTime, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Runtime } from "../runtime/runtime.js";
import { runtimeFor, sharesOtelContext } from "../runtime/configure.js";
import { capture, captureArguments } from "./capture.js";
import { parentFor, withObservedSpan } from "./context.js";
import type { ObserveOptions } from "../spans/fields.js";
import type { SpanType } from "../protocol/types.js";
import { type ObserveOptionsSnapshot, type PreparedObserveOptions, prepareObserveOptions, snapshotObserveOptions } from "./observe-options.js";
import { describeError } from "../util/describe-error.js";
import type { JsonValue } from "../spans/json-value.js";
import { applyScopedDefaults } from "./scoped-defaults.js";
import { setOwner, setSpanData, SPAN_TYPE_ATTRIBUTE, type SpanData } from "../spans/span-data.js";
import { MAX_NAME_CHARS, truncateString } from "../util/string-limits.js";
import { isLater, preciseNow } from "../spans/time.js";
import { routeTrace } from "./trace-key.js";
import { warnFieldOnce } from "../spans/field-warnings.js";
import { noteSpanWithoutTestCase } from "../util/spans-without-test-case.js";

/** Any function: what `observe` wraps. */
export type AnyFunction = (...args: never[]) => unknown;

/**
 * What `observe(options)` returns: a decorator for class methods, working both as a TypeScript
 * standard decorator and as a legacy `experimentalDecorators` one.
 */
export interface ObserveDecorator {
  <This, Args extends unknown[], Return>(
    method: (this: This, ...args: Args) => Return,
    context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Return>,
  ): (this: This, ...args: Args) => Return;
  (target: object, propertyKey: string | symbol, descriptor: PropertyDescriptor): PropertyDescriptor;
}

/** Most items of a generator kept as its span's output. */
const MAX_STREAM_ITEMS = 1000;

/**
 * Wraps a function so that each call is a span of the current trace (or the root of a new one).
 * The wrapper keeps the signature and `this`; sync stays sync, async stays async, and
 * generators end their span when iteration finishes. Errors are recorded and re-thrown as the
 * same object; a returned promise (or any thenable, such as an SDK's promise subclass) is
 * returned as the very same object, its settlement observed on the side.
 *
 * Mistakes in the definition are a `TypeError` right away: options that are not an object or
 * have an unknown `type`, and `observe(fn, options)` with the arguments swapped. Wrong field
 * values never throw: they are dropped or repaired with a warning at the first traced call.
 *
 * @example
 * const answer = observe({ type: "llm", model: "gpt-4o" }, async (q: string) => callModel(q));
 * class Bot { @observe({ type: "agent" }) async run(q: string) { ... } }
 */
export function observe<F extends AnyFunction>(fn: F): F;
export function observe<F extends AnyFunction>(options: ObserveOptions, fn: F): F;
export function observe(options?: ObserveOptions): ObserveDecorator;
export function observe(...args: [a?: ObserveOptions | AnyFunction, b?: AnyFunction]): unknown {
  const [a, b] = args;
  if (typeof a === "function") {
    if (b !== undefined) {
      throw new TypeError(
        b !== null && typeof b === "object"
          ? "evaltrace: observe(fn, options) has its arguments swapped; write observe(options, fn)"
          : `evaltrace: observe(fn) takes no second argument; got ${b === null ? "null" : typeof b}`,
      );
    }
    return wrap(snapshotObserveOptions({}), a);
  }
  if (a === null || (a === undefined && args.length > 0)) {
    // observe(maybeFn) with a function that is not there: a decorator would be returned, and the
    // mistake would show only when it is called, as something else.
    throw new TypeError(`evaltrace: observe() got ${a === null ? "null" : "undefined"}; pass the function to wrap (observe(fn) or observe(options, fn)), or use @observe(options) on a class method`);
  }
  const options = snapshotObserveOptions(a ?? {});
  if (b !== undefined) {
    if (typeof b !== "function") throw new TypeError(`evaltrace: observe(options, fn) needs a function; got ${b === null ? "null" : typeof b}`);
    return wrap(options, b);
  }
  return decorator(options);
}

function decorator(options: ObserveOptionsSnapshot): ObserveDecorator {
  return function observeDecorator(target: unknown, key: unknown, descriptor?: PropertyDescriptor): unknown {
    if (key !== null && typeof key === "object" && "kind" in key) {
      // Standard decorator: (method, context).
      const ctx = key as ClassMethodDecoratorContext;
      if (ctx.kind !== "method") throw new TypeError(`evaltrace: @observe decorates methods only; ${String(ctx.name)} is a ${String(ctx.kind)}`);
      return wrap(options, target as AnyFunction, String(ctx.name));
    }
    if (typeof target === "function" && key === undefined) {
      // observe(options)(fn): the decorator called as a wrapper.
      throw new TypeError("evaltrace: observe(options) returns a decorator for class methods (@observe(options)); to wrap a function, write observe(options, fn)");
    }
    // Legacy decorator: (prototype, propertyKey, descriptor).
    if (!descriptor || typeof descriptor.value !== "function") {
      throw new TypeError(`evaltrace: @observe decorates methods only${key !== undefined ? `; ${String(key)} is not a method` : ""}`);
    }
    descriptor.value = wrap(options, descriptor.value as AnyFunction, String(key));
    return descriptor;
  } as ObserveDecorator;
}

function wrap<F extends AnyFunction>(options: ObserveOptionsSnapshot, fn: F, methodName?: string): F {
  const type = options.type;
  let prepared: PreparedObserveOptions | undefined;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const active = context.active();
    const shared = sharesOtelContext();
    const parent = parentFor(active, shared);
    const rt = runtimeFor(parent);
    if (!rt) return fn.apply(this, args as never[]);
    let started: { span: Span; data: SpanData; ctx: ReturnType<typeof context.active> };
    let name = "anonymous";
    try {
      prepared ??= prepareObserveOptions(options, rt);
      name = prepared.name ?? (methodName || fn.name || "anonymous");
      started = start(rt, name, type, prepared.fields, args, active, { parent, shared });
      if (prepared.metadata) started.data.metadata = { ...started.data.metadata, ...prepared.metadata };
      if (prepared.apiKey !== undefined) routeFromOptions(rt, started.span, prepared.apiKey);
    } catch (err) {
      rt.logger.error(`could not open span ${truncateString(String(name), MAX_NAME_CHARS)}: ${describeError(err)}`);
      return fn.apply(this, args as never[]);
    }
    const { span, data, ctx } = started;
    let result: unknown;
    try {
      result = context.with(ctx, fn as unknown as (...a: unknown[]) => unknown, this, ...args);
    } catch (err) {
      end(rt, span, data, undefined, err, true);
      throw err;
    }
    return settle(rt, span, data, ctx, result);
  };
  Object.defineProperty(wrapped, "name", { value: fn.name, configurable: true });
  Object.defineProperty(wrapped, "length", { value: fn.length, configurable: true });
  return wrapped as unknown as F;
}

/**
 * `observe({ apiKey })`: routes the trace when the span is its root in this process (a span
 * under a remote caller's span is: a service's handler); on a nested span, says once that it
 * does not.
 */
function routeFromOptions(rt: Runtime, span: Span, apiKey: unknown): void {
  if (!span.isRecording()) return;
  const parent = (span as { parentSpanContext?: { isRemote?: boolean } }).parentSpanContext;
  if (parent && parent.isRemote !== true) {
    warnFieldOnce(rt.logger, "observe option.apiKey:nested", "observe option apiKey applies on a trace's root span only; ignored on a nested span (use updateCurrentTrace({ apiKey }) there)");
    return;
  }
  routeTrace(rt, span.spanContext().traceId, apiKey, "observe option");
}

/**
 * Opens a span (internal: `observe` and manual spans use it). The name is cut at
 * {@link MAX_NAME_CHARS}; `fields` must already be checked.
 */
export function start(
  rt: Runtime,
  name: string,
  type: SpanType,
  fields: { [key: string]: JsonValue },
  args: unknown[],
  parentContext?: Context,
  // The caller's look-up of the parent, when it made one already.
  found?: { parent: Span | undefined; shared: boolean },
) {
  const active = parentContext ?? context.active();
  const shared = rt.options.otelContext === "shared" && (found ? found.shared : sharesOtelContext());
  const parent = found && found.shared === shared ? found.parent : parentFor(active, shared);
  const spanName = truncateString(typeof name === "string" ? name : String(name), MAX_NAME_CHARS) || "anonymous";
  // Never before a parent of another instrumentation (whose clock may differ by a hair).
  const now = preciseNow();
  const parentStart = (parent as { startTime?: HrTime } | undefined)?.startTime;
  const startTime = parentStart && isLater(parentStart, now) ? parentStart : now;
  // The parent is given, not put in a context for the span to find (a root: none, whatever span
  // of another instrumentation the context holds).
  const span = rt.startSpan(spanName, startTime, TYPE_ATTRIBUTES[type], active, parent ?? null);
  // The fields most spans get, made unset: set later, they fit in the object itself.
  const data: SpanData = { type, fields: { ...fields }, input: undefined, argumentCount: undefined, output: undefined, ended: undefined };
  if (span.isRecording()) {
    if (rt.options.captureInputs && args.length > 0) {
      const input = args.length === 1 ? capture(rt, args[0]) : captureArguments(rt, args);
      if (input !== undefined) data.input = input;
      data.argumentCount = args.length;
    }
    setSpanData(span, data);
    setOwner(span, rt);
    applyScopedDefaults(rt, span.spanContext().traceId, data, active);
  }
  const ctx = withObservedSpan(active, span);
  // Shared: what other instrumentations record inside it is its descendant (one trace).
  return { span, data, ctx: shared && span.isRecording() ? trace.setSpan(ctx, span) : ctx };
}

/** The attribute that marks each type of span, made once: shared by the spans of the type (frozen; a span copies it on its first write). */
const TYPE_ATTRIBUTES: Readonly<Record<SpanType, Attributes>> = Object.freeze({
  base: Object.freeze({ [SPAN_TYPE_ATTRIBUTE]: "base" }),
  llm: Object.freeze({ [SPAN_TYPE_ATTRIBUTE]: "llm" }),
  retriever: Object.freeze({ [SPAN_TYPE_ATTRIBUTE]: "retriever" }),
  agent: Object.freeze({ [SPAN_TYPE_ATTRIBUTE]: "agent" }),
  tool: Object.freeze({ [SPAN_TYPE_ATTRIBUTE]: "tool" }),
});

/** Ends a span with its output or error. Never throws. (Internal: integrations use it through manual-span.) */
export function end(rt: Runtime, span: Span, data: SpanData, output: unknown, error: unknown, failed: boolean): void {
  try {
    if (!span.isRecording()) return;
    if (failed) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
    } else if (rt.options.captureOutputs && !data.outputPinned && output !== undefined) {
      const out = capture(rt, output);
      if (out !== undefined) data.output = out;
    }
    const collection = data.fields.metricCollection;
    if (typeof collection === "string" && data.fields.llmTestCase === undefined) noteSpanWithoutTestCase(collection, data.name ?? String((span as { name?: unknown }).name), rt.logger);
    // Every recording span here is ours (rt.startSpan): it takes the time itself, never before its start.
    span.end();
  } catch (err) {
    rt.logger.error(`could not end span: ${describeError(err)}`);
  }
}

function settle(rt: Runtime, span: Span, data: SpanData, ctx: ReturnType<typeof context.active>, result: unknown): unknown {
  if (result === null || (typeof result !== "object" && typeof result !== "function")) {
    end(rt, span, data, result, undefined, false);
    return result;
  }
  let tag: unknown;
  let then: unknown;
  try {
    // The tag Object.prototype.toString would name it by, without making that string.
    tag = (result as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    then = (result as { then?: unknown }).then;
  } catch {
    // A hostile return value (a revoked proxy, a throwing getter): not ours to inspect.
    end(rt, span, data, "[uninspectable value]", undefined, false);
    return result;
  }
  if (tag === "AsyncGenerator" || tag === "Generator") {
    return wrapIterator(rt, span, data, ctx, result as AsyncGenerator & Generator, tag === "AsyncGenerator");
  }
  if (typeof then !== "function") {
    end(rt, span, data, result, undefined, false);
    return result;
  }
  // A promise or any thenable (an SDK's promise subclass with extra methods, a lazy query):
  // the caller gets the very same object; its settlement is observed on the side with handlers
  // that never throw, so the observation itself can never become an unhandled rejection.
  try {
    (then as (ok: (v: unknown) => void, ko: (e: unknown) => void) => unknown).call(
      result,
      (value) => end(rt, span, data, value, undefined, false),
      (err) => end(rt, span, data, undefined, err, true),
    );
  } catch (err) {
    end(rt, span, data, undefined, err, true);
  }
  return result;
}

type AnyGenerator = {
  next(...args: unknown[]): unknown;
  return(value?: unknown): unknown;
  throw(err?: unknown): unknown;
};

/**
 * Wraps a generator so that each step runs in the span's context and the span ends when
 * iteration finishes (done, `return()`, or an error), with the yielded values as output.
 */
function wrapIterator(rt: Runtime, span: Span, data: SpanData, ctx: ReturnType<typeof context.active>, gen: AnyGenerator, isAsync: boolean): unknown {
  const items: unknown[] = [];
  // Text chunks are kept up to the total of one captured value; later items are only counted.
  const maxChars = rt.options.serializeLimits.maxTotalChars;
  let chars = 0;
  let omitted = 0;
  let finished = false;
  const finish = (err?: unknown, failed = false) => {
    if (finished) return;
    finished = true;
    if (omitted > 0) items.push(`...[${omitted} more items]`);
    const output = items.every((i) => typeof i === "string") ? items.join("") : items;
    end(rt, span, data, output, err, failed);
  };
  const observeStep = (step: { done?: boolean; value?: unknown }) => {
    if (step.done) finish();
    else if (items.length >= MAX_STREAM_ITEMS || chars >= maxChars) omitted++;
    else if (typeof step.value === "string") {
      const chunk = truncateString(step.value, maxChars - chars);
      chars += chunk.length;
      items.push(chunk);
    } else items.push(step.value);
    return step;
  };
  const call = (method: "next" | "return" | "throw", arg: unknown[]) => {
    let step: unknown;
    try {
      step = context.with(ctx, () => gen[method](...arg));
    } catch (err) {
      finish(err, true);
      throw err;
    }
    if (!isAsync) {
      const s = observeStep(step as { done?: boolean; value?: unknown });
      if (method === "return") finish();
      return s;
    }
    return (step as Promise<{ done?: boolean; value?: unknown }>).then(
      (s) => {
        observeStep(s);
        if (method === "return") finish();
        return s;
      },
      (err: unknown) => {
        finish(err, true);
        throw err;
      },
    );
  };
  const wrapper = {
    next: (...arg: unknown[]) => call("next", arg),
    return: (...arg: unknown[]) => call("return", arg),
    throw: (...arg: unknown[]) => call("throw", arg),
    [isAsync ? Symbol.asyncIterator : Symbol.iterator]() {
      return wrapper;
    },
  };
  return wrapper;
}
