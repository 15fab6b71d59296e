import { type Span, SpanStatusCode } from "@opentelemetry/api";
import { spanUuid, traceUuid } from "../spans/ids.js";
import type { Runtime } from "../runtime/runtime.js";
import { isRunning } from "../traces/trace-view.js";
import { warnFieldOnce } from "../spans/field-warnings.js";
import type { SpanUpdate, TraceUpdate } from "../spans/fields.js";
import type { SpanType } from "../protocol/types.js";
import { describeError } from "../util/describe-error.js";
import { getSpanData, parentSpanIdOf } from "../spans/span-data.js";
import { current, updateSpanOf, updateTraceOf } from "./update.js";

/**
 * The span that was current when {@link currentSpan} was called, as an object: the same
 * updates as the free functions, bound to that span wherever the handle is used. Once the span
 * ended, every method does nothing (one warning). Never throws.
 */
export interface SpanHandle {
  /** The uuid the service knows the span by. */
  readonly uuid: string;
  /** The uuid of the span's trace. */
  readonly traceUuid: string;
  /** The span's type. */
  readonly type: SpanType;
  /** Whether the span has ended (the handle then does nothing). */
  readonly ended: boolean;
  /** Sets fields of the span, as `updateCurrentSpan` does. */
  update(fields: SpanUpdate): void;
  /** Sets the span's output; the function's return value no longer replaces it. */
  setOutput(output: unknown): void;
  /** Marks the span errored with this error's message (the span keeps running; nothing is thrown). */
  recordError(error: unknown): void;
}

/** The trace that was current when {@link currentTrace} was called, as an object. Never throws. */
export interface TraceHandle {
  /** The uuid the service knows the trace by. */
  readonly uuid: string;
  /** Sets fields of the trace, as `updateCurrentTrace` does. */
  update(fields: TraceUpdate): void;
  /** Sets the trace's output. */
  setOutput(output: unknown): void;
  /**
   * Marks the trace errored: its root span gets this error's message, so the trace goes out
   * `ERRORED`. Only while the root runs (one warning after); nothing is thrown.
   */
  recordError(error: unknown): void;
  /** Drops the trace: nothing of it is sent (see `updateCurrentTrace({ drop: true })`). */
  drop(): void;
}

const HANDLE = Symbol.for("evaltrace.spanHandle");

/**
 * A handle on the innermost observed span, or undefined outside one (or when tracing is off).
 * The same span gives the same handle.
 *
 * @example
 * const span = currentSpan();
 * span?.update({ metadata: { cached: true } });
 */
export function currentSpan(): SpanHandle | undefined {
  const cur = current();
  if (!cur) return undefined;
  const holder = cur.span as { [HANDLE]?: SpanHandle };
  holder[HANDLE] ??= spanHandle(cur.rt, cur.span);
  return holder[HANDLE];
}

/** A handle on the current trace, or undefined outside an observed span (or when tracing is off). */
export function currentTrace(): TraceHandle | undefined {
  const cur = current();
  if (!cur) return undefined;
  return traceHandle(cur.rt, cur.span.spanContext().traceId);
}

function spanHandle(rt: Runtime, span: Span): SpanHandle {
  const { traceId, spanId } = span.spanContext();
  const data = getSpanData(span);
  const live = (method: string): boolean => {
    if (data && !data.ended && span.isRecording()) return true;
    warnFieldOnce(rt.logger, "span handle:ended", `span handle ${method}() called after its span ended: ignored`);
    return false;
  };
  return {
    uuid: spanUuid(traceId, spanId),
    traceUuid: traceUuid(traceId),
    type: data?.type ?? "base",
    get ended() {
      return !data || data.ended === true || !span.isRecording();
    },
    update(fields) {
      if (live("update")) updateSpanOf(rt, span, fields, "span handle update");
    },
    setOutput(output) {
      if (live("setOutput")) updateSpanOf(rt, span, { output }, "span handle setOutput");
    },
    recordError(error) {
      if (!live("recordError")) return;
      try {
        span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
      } catch (err) {
        rt.logger.error(`span handle recordError failed: ${describeError(err)}`);
      }
    },
  };
}

function traceHandle(rt: Runtime, traceId: string): TraceHandle {
  const live = (method: string): boolean => {
    if (rt.heldTrace(traceId)) return true;
    warnFieldOnce(rt.logger, "trace handle:ended", `trace handle ${method}() called after its trace was delivered: ignored`);
    return false;
  };
  return {
    uuid: traceUuid(traceId),
    update(fields) {
      if (live("update")) updateTraceOf(rt, traceId, fields, "trace handle update");
    },
    setOutput(output) {
      if (live("setOutput")) updateTraceOf(rt, traceId, { output }, "trace handle setOutput");
    },
    recordError(error) {
      const rec = rt.heldTrace(traceId);
      let root: object | undefined;
      if (rec && isRunning(rec)) for (const open of rec.openSpans) if (!parentSpanIdOf(open)) root = open;
      if (!root) {
        warnFieldOnce(rt.logger, "trace handle:recordError", "trace handle recordError() called after the trace's root span ended: ignored");
        return;
      }
      try {
        (root as Span).setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
      } catch (err) {
        rt.logger.error(`trace handle recordError failed: ${describeError(err)}`);
      }
    },
    drop() {
      updateTraceOf(rt, traceId, { drop: true }, "trace handle drop");
    },
  };
}
