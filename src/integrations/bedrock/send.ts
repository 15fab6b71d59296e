import { context } from "@opentelemetry/api";
import type { ReadableMessage } from "../../semconv/messages.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { embeddingSpan } from "../kit/embedding-call.js";
import { finishCall, incomplete, isObject, type ModelWrapOptions, quietly, tapIterator } from "../kit/model-call.js";
import { operationOf, type Started } from "./operations.js";
import { callResult, type Reply } from "./reply.js";

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** One traced call: its span, its input and what reading its output needs. */
interface Call {
  span: ManualSpan;
  input: ReadableMessage[];
  started: Started;
  options: ModelWrapOptions;
  /** Ends once: by the output, the stream's end, or a failure. */
  ended: boolean;
}

/** Opens the call's span; undefined (the call runs untraced) when tracing is off or the input cannot be read. */
function startCall(command: unknown, options: ModelWrapOptions): Call | undefined {
  try {
    const operation = operationOf(command);
    if (!operation) return undefined;
    const raw = (command as { input?: unknown }).input;
    const input = isObject(raw) ? raw : {};
    const started = operation.start(input);
    const fields = { model: input.modelId, provider: "Bedrock" };
    // An embedding model's request inside a framework's embedding call takes over its span.
    const span = started.embedding ? embeddingSpan(operation.span, fields, started.input, () => openSpan(operation.span, "llm", fields, started.input)) : openSpan(operation.span, "llm", fields, started.input);
    if (!span) return undefined;
    span.setIntegration("Bedrock");
    if (options.metricCollection) span.set({ metricCollection: options.metricCollection });
    return { span, input: started.input, started, options, ended: false };
  } catch {
    return undefined;
  }
}

/** The extra metadata of every call: the model family of an InvokeModel body, the request id. */
function callMetadata(call: Call, output: unknown): Record<string, unknown> {
  const meta = isObject(output) && isObject(output.$metadata) ? output.$metadata : {};
  return { modelFamily: call.started.family, requestId: meta.requestId };
}

function finish(call: Call, reply: Reply, output: unknown): void {
  if (call.ended) return;
  call.ended = true;
  finishCall(call.span, call.options, call.input, callResult(reply, callMetadata(call, output)));
}

function fail(call: Call, err: unknown): void {
  if (call.ended) return;
  call.ended = true;
  call.span.fail(err);
}

/**
 * Taps the output's event stream in place (its own object, its async iterator replaced by one
 * that sees every event the app reads): the span ends when the stream ends, with what it folded;
 * ERRORED when the stream fails, ends before the message's end (aborted), or when the app stops
 * reading before that end (`break`).
 */
function tapStream(call: Call, output: Record<string, unknown>, member: string, folder: NonNullable<Started["stream"]>["folder"]): void {
  const stream = output[member];
  if (!isObject(stream) || typeof stream[Symbol.asyncIterator] !== "function") {
    finish(call, { parts: [], metadata: { note: "no event stream in the output" } }, output);
    return;
  }
  const iterate = stream[Symbol.asyncIterator] as () => AsyncIterator<unknown>;
  const fold = folder();
  Object.defineProperty(stream, Symbol.asyncIterator, {
    configurable: true,
    writable: true,
    value(this: unknown) {
      return tapIterator(iterate.call(this), {
        fold: (event) => fold.fold(event),
        timing: { span: call.span, content: (event) => fold.content(event) },
        done() {
          if (fold.complete()) finish(call, fold.reply(), output);
          else fail(call, incomplete("stream ended before the end of the message (aborted)"));
        },
        failed: (err) => fail(call, err),
        abandoned() {
          if (fold.complete()) finish(call, fold.reply(), output);
          else fail(call, incomplete("stream closed by the app before the end of the message"));
        },
      });
    },
  });
}

/** Reads the command's output: a reply now, or a stream to tap. Never throws. */
function see(call: Call, output: unknown): void {
  try {
    const out = isObject(output) ? output : {};
    const stream = call.started.stream;
    if (stream) tapStream(call, out, stream.member, stream.folder);
    else finish(call, call.started.reply ? call.started.reply(out) : { parts: [], metadata: {} }, out);
  } catch (err) {
    fail(call, err);
  }
}

/**
 * The instrumented `send(command, options?, callback?)`: the four model operations become llm
 * spans, anything else runs untouched. The promise (or the callback) the app gets is the SDK's
 * own, with the SDK's own output and errors at the same moment; the call runs in the span's
 * context, so spans the SDK's middleware makes are its children.
 */
export function instrumentedSend(original: Fn, options: () => ModelWrapOptions): Fn {
  return function send(this: unknown, ...args: unknown[]): unknown {
    const call = startCall(args[0], options());
    if (!call) return original.apply(this, args);
    const cbAt = typeof args[1] === "function" ? 1 : typeof args[2] === "function" ? 2 : -1;
    if (cbAt >= 0) {
      const callback = args[cbAt] as Fn;
      const observed = [...args];
      observed[cbAt] = function (this: unknown, err: unknown, data: unknown) {
        quietly(() => (err ? fail(call, err) : see(call, data)));
        return callback.call(this, err, data);
      };
      try {
        return context.with(call.span.context, () => original.apply(this, observed));
      } catch (err) {
        fail(call, err);
        throw err;
      }
    }
    let result: unknown;
    try {
      result = context.with(call.span.context, () => original.apply(this, args));
    } catch (err) {
      fail(call, err);
      throw err;
    }
    quietly(() => {
      if (result && typeof (result as Promise<unknown>).then === "function") {
        // Attached before the app's own handlers: a stream is tapped before the app reads it.
        (result as Promise<unknown>).then(
          (output) => see(call, output),
          (err: unknown) => fail(call, err),
        );
      } else see(call, result);
    });
    return result;
  };
}
