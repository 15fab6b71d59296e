import { type Context, context } from "@opentelemetry/api";
import { runtimeFor, sharesOtelContext } from "../runtime/configure.js";
import { parentFor } from "./context.js";
import type { SpanType } from "../protocol/types.js";
import { capture } from "./capture.js";
import { end, start } from "./observe.js";
import { describeError } from "../util/describe-error.js";
import { MAX_LABEL_CHARS, MAX_NAME_CHARS, truncateString } from "../util/string-limits.js";
import { pickSpanFields } from "../spans/validate-fields.js";
import { markIntegrationSpan } from "../spans/span-data.js";

/** A span that an integration opens and ends by hand (for calls that are not one function). */
export interface ManualSpan {
  /** The context with this span current: run the call in it so nested spans are its children. */
  readonly context: Context;
  /** Sets span fields (type fields, metricCollection, llmTestCase, ...); wrong shapes are ignored. */
  set(fields: Record<string, unknown>): void;
  /** Replaces the captured input (masked and made JSON-safe like any capture). */
  setInput(input: unknown): void;
  /** Renames the span. */
  rename(name: string): void;
  /** Sets the integration that produced the span (`OpenAI`, `LangChain`, ...). */
  setIntegration(name: string): void;
  /** Ends the span with its output. Idempotent. */
  end(output?: unknown): void;
  /** Ends the span as errored; with `output`, what the call gave before it failed (a stream's text so far). Idempotent. */
  fail(error: unknown, output?: unknown): void;
}

/**
 * Opens a span under the current one (or under `parent`, a context from another ManualSpan),
 * or returns undefined when tracing is off. Never throws.
 */
export function openSpan(name: string, type: SpanType, fields: Record<string, unknown>, input?: unknown, parent?: Context): ManualSpan | undefined {
  const rt = runtimeFor(parentFor(parent ?? context.active(), sharesOtelContext()));
  if (!rt) return undefined;
  try {
    const limits = rt.options.serializeLimits;
    const started = start(rt, name, type, pickSpanFields(type, fields, rt.logger, limits), input === undefined ? [] : [input], parent);
    // An integration's input and output are the call's own: a test case never stands in for them.
    if (input !== undefined) started.data.inputPinned = true;
    // The app's framework may record this request too: kept once (traces/model-call-fold.ts).
    markIntegrationSpan(started.span);
    let done = false;
    return {
      context: started.ctx,
      set(more) {
        if (!done) Object.assign(started.data.fields, pickSpanFields(type, more, rt.logger, limits));
      },
      setInput(input) {
        if (done) return;
        const captured = capture(rt, input);
        if (captured !== undefined) started.data.input = captured;
        started.data.inputPinned = true;
      },
      rename(newName) {
        if (!done && typeof newName === "string" && newName) started.span.updateName(truncateString(newName, MAX_NAME_CHARS));
      },
      setIntegration(integration) {
        if (typeof integration === "string" && integration) started.data.fields.integration = truncateString(integration, MAX_LABEL_CHARS);
      },
      end(output) {
        if (done) return;
        done = true;
        end(rt, started.span, started.data, output, undefined, false);
        started.data.outputPinned = true;
      },
      fail(error, output) {
        if (done) return;
        done = true;
        if (output !== undefined && rt.options.captureOutputs) {
          const out = capture(rt, output);
          if (out !== undefined) started.data.output = out;
          started.data.outputPinned = true;
        }
        end(rt, started.span, started.data, undefined, error, true);
      },
    };
  } catch (err) {
    rt.logger.error(`could not open span ${name}: ${describeError(err)}`);
    return undefined;
  }
}
