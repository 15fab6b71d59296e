import { context } from "@opentelemetry/api";
import type { ReadableMessage } from "../../semconv/messages.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { embeddingSpan } from "../kit/embedding-call.js";
import { finishCall, incomplete, isObject, type ModelWrapOptions, owningCall, quietly, tapIterator } from "../kit/model-call.js";
import { lookalike, proxyWith } from "../kit/lookalike.js";
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
 * Taps the output's event stream and returns the output the app gets: a Proxy of the SDK's
 * output whose stream member is a Proxy of the SDK's stream, its async iterator tapped on its
 * first read (the SDK's stream is an object of its own iterator: it is left as it is, and both
 * Proxies read as the SDK's objects). The span ends when the stream ends, with what it folded;
 * ERRORED when the stream fails, ends before the message's end (aborted), or when the app stops
 * reading before that end (`break`).
 */
function tapStream(call: Call, output: Record<string, unknown>, member: string, folder: NonNullable<Started["stream"]>["folder"]): unknown {
  const stream = output[member];
  if (!isObject(stream) || typeof stream[Symbol.asyncIterator] !== "function") {
    finish(call, { parts: [], metadata: { note: "no event stream in the output" } }, output);
    return output;
  }
  const iterate = stream[Symbol.asyncIterator] as (this: unknown) => AsyncIterator<unknown>;
  const fold = folder();
  let read = false;
  const iterator = lookalike(iterate, () => {
    const it = iterate.call(stream);
    if (read) return it;
    read = true;
    return tapIterator(it, {
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
  });
  return proxyWith(output, { [member]: proxyWith(stream, { [Symbol.asyncIterator]: iterator }) });
}

/** Reads the command's output: a reply now, or a stream to tap. Returns what the app gets (the output, or a Proxy of it whose stream is tapped). Never throws. */
function see(call: Call, output: unknown): unknown {
  try {
    const out = isObject(output) ? output : {};
    const stream = call.started.stream;
    if (stream) return isObject(output) ? tapStream(call, out, stream.member, stream.folder) : output;
    finish(call, call.started.reply ? call.started.reply(out) : { parts: [], metadata: {} }, out);
  } catch (err) {
    fail(call, err);
  }
  return output;
}

/**
 * The instrumented `send(command, options?, callback?)`: the four model operations become llm
 * spans, anything else runs untouched. The promise (or the callback) the app gets is the SDK's
 * own, with the SDK's own output and errors at the same moment (a streamed operation's output is
 * a Proxy of the SDK's that reads as it does: see tapStream); the call runs in the span's
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
        let given = data;
        quietly(() => {
          if (err) fail(call, err);
          else given = see(call, data);
        });
        return callback.call(this, err, given);
      };
      try {
        return context.with(owningCall(call.span.context), () => original.apply(this, observed));
      } catch (err) {
        fail(call, err);
        throw err;
      }
    }
    let result: unknown;
    try {
      result = context.with(owningCall(call.span.context), () => original.apply(this, args));
    } catch (err) {
      fail(call, err);
      throw err;
    }
    if (call.started.stream && result && typeof (result as Promise<unknown>).then === "function") {
      // A stream is read through the output the app gets (see tapStream); the promise settles as the SDK's does, with its own error.
      return (result as Promise<unknown>).then(
        (output) => see(call, output),
        (err: unknown) => {
          fail(call, err);
          throw err;
        },
      );
    }
    quietly(() => {
      if (result && typeof (result as Promise<unknown>).then === "function") {
        (result as Promise<unknown>).then(
          (output) => see(call, output),
          (err: unknown) => fail(call, err),
        );
      } else see(call, result);
    });
    return result;
  };
}
