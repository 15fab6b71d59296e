import { spanUuid, traceUuid } from "../export/ids.js";
import type { SafeTraceUpdate } from "../export/trace-assembler.js";
import { activeRuntime } from "../runtime.js";
import { capture } from "./capture.js";
import { currentObservedSpan } from "./context.js";
import type { SpanUpdate, TraceUpdate } from "./fields.js";
import { describeError, type JsonValue, toJsonValue } from "./serialize.js";
import { getSpanData } from "./span-data.js";
import { pickSpanFields, traceFieldFits } from "./validate-fields.js";

function current() {
  const rt = activeRuntime();
  const span = currentObservedSpan();
  if (!rt || !span?.isRecording()) return undefined;
  return { rt, span };
}

/**
 * Sets fields of the innermost observed span: input, output, metadata (merged), name, the
 * span type's own fields, `metricCollection`, `llmTestCase` and test-case fields. Outside any
 * span, or on a span that already ended, it does nothing. Never throws.
 *
 * @example
 * updateCurrentSpan({ inputTokenCount: 12, outputTokenCount: 40, llmTestCase: { input: q, actualOutput: out } });
 */
export function updateCurrentSpan(fields: SpanUpdate): void {
  const cur = current();
  if (!cur) {
    activeRuntime()?.logger.debug("updateCurrentSpan outside an observed span: ignored");
    return;
  }
  const { rt, span } = cur;
  try {
    const data = getSpanData(span);
    if (!data || data.ended || typeof fields !== "object" || fields === null) return;
    if (typeof fields.name === "string" && fields.name) span.updateName(fields.name);
    if ("input" in fields && fields.input !== undefined) {
      const input = capture(rt, fields.input);
      if (input !== undefined) data.input = input;
    }
    if ("output" in fields && fields.output !== undefined) {
      const output = capture(rt, fields.output);
      if (output !== undefined) data.output = output;
      data.outputPinned = true;
    }
    if (fields.metadata !== undefined) {
      const meta = capture(rt, fields.metadata);
      if (meta && typeof meta === "object" && !Array.isArray(meta)) data.metadata = { ...data.metadata, ...meta };
      else rt.logger.warn("span metadata must be an object; ignored");
    }
    Object.assign(data.fields, pickSpanFields(data.type, fields, rt.logger));
  } catch (err) {
    rt.logger.error(`updateCurrentSpan failed: ${describeError(err)}`);
  }
}

/**
 * Sets fields of the current trace: `name`, `input`, `output`, `threadId`, `userId`, `tags`
 * (appended), `metadata` (merged), `environment`, `metricCollection`, `llmTestCase` and
 * test-case fields. After the trace was sent, `output`, `environment`, `metadata` and `tags`
 * still go out as a `PUT`; the others are fixed by then (spec 4.6). Never throws.
 */
export function updateCurrentTrace(fields: TraceUpdate): void {
  const cur = current();
  if (!cur) {
    activeRuntime()?.logger.debug("updateCurrentTrace outside an observed span: ignored");
    return;
  }
  const { rt, span } = cur;
  try {
    if (typeof fields !== "object" || fields === null) return;
    const safe: SafeTraceUpdate = {};
    for (const [key, value] of Object.entries(fields) as [keyof TraceUpdate, unknown][]) {
      if (value === undefined || !traceFieldFits(key, value, rt.logger)) continue;
      if (key === "input" || key === "output" || key === "metadata") {
        const v = capture(rt, value);
        if (v === undefined) continue;
        if (key === "metadata" && (v === null || typeof v !== "object" || Array.isArray(v))) {
          rt.logger.warn("trace metadata must be an object; ignored");
          continue;
        }
        safe[key] = v;
      } else {
        safe[key] = toJsonValue(value) as JsonValue;
      }
    }
    rt.assembler.updateTrace(span.spanContext().traceId, safe);
  } catch (err) {
    rt.logger.error(`updateCurrentTrace failed: ${describeError(err)}`);
  }
}

/** The uuid the service knows the current trace by, or undefined outside an observed span. */
export function currentTraceUuid(): string | undefined {
  const span = currentObservedSpan();
  return span?.isRecording() ? traceUuid(span.spanContext().traceId) : undefined;
}

/** The uuid the service knows the current span by, or undefined outside an observed span. */
export function currentSpanUuid(): string | undefined {
  const span = currentObservedSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return spanUuid(traceId, spanId);
}
