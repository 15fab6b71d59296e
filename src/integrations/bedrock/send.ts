import { context } from "@opentelemetry/api";
import type { ReadableMessage } from "../../semconv/messages.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { embeddingSpan } from "../kit/embedding-call.js";
import { cutCall, finishCall, incomplete, isObject, type ModelWrapOptions, owningCall, quietly, tapIterator } from "../kit/model-call.js";
import { HeldStream } from "../kit/stream-ending.js";
import { lookalike, proxyWith } from "../kit/lookalike.js";
import { operationOf, type Started } from "./operations.js";
import { callResult, type Reply } from "./reply.js";

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
  // The app holds the stream from now: deliver() cuts it short when nobody reads it (never read, or not to its end).
  const held = new HeldStream(call.span, (why) => {
    if (call.ended) return;
    call.ended = true;
    cutCall(call.span, callResult(fold.reply(), callMetadata(call, output)), why);
  });
  let read = false;
  const iterator = lookalike(iterate, () => {
    const it = iterate.call(stream);
    if (read) return it;
    read = true;
    return tapIterator(it, {
      fold: (event) => fold.fold(event),
      timing: { span: call.span, content: (event) => fold.content(event) },
      reads: held,
      done() {
        held.settle(() => {
          if (fold.complete()) finish(call, fold.reply(), output);
          else fail(call, incomplete("stream ended before the end of the message (aborted)"));
        });
      },
      failed: (err) => held.settle(() => fail(call, err)),
      abandoned() {
        held.settle(() => {
          if (fold.complete()) finish(call, fold.reply(), output);
          else fail(call, incomplete("stream closed by the app before the end of the message"));
        });
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

/** The command a handler runs: the SDK calls the stack's handler with the command itself (`handler(command)`). */
function operationCommand(args: unknown, handlerContext: unknown): unknown {
  if (operationOf(args)) return args;
  // An SDK that hands the stack `{ input }`: the operation by the context's command name.
  const name = isObject(handlerContext) ? handlerContext.commandName : undefined;
  return typeof name === "string" && isObject(args) ? { input: args.input, constructor: { name } } : args;
}

/** A middleware of the AWS SDK: `(next, context) => (args) => Promise<{ output, response }>`. */
export type Middleware = (next: (args: unknown) => Promise<unknown>, handlerContext: unknown) => (args: unknown) => Promise<unknown>;

/**
 * The middleware `wrapBedrock` adds at the start of a client's stack (its `initialize` step, the
 * SDK's own extension point): the four model operations become llm spans, anything else runs
 * untouched. It runs once per `send` (the SDK's retries are below it), in the app's context, and
 * runs the rest of the stack in the span's context (so spans the SDK's middleware makes are its
 * children and the net below knows the request is recorded). The SDK's `send` returns (or calls
 * back with) the output it resolves to: the SDK's own, with its own errors at the same moment (a
 * streamed operation's output is a Proxy of the SDK's that reads as it does: see tapStream).
 */
export function modelCallMiddleware(options: () => ModelWrapOptions): Middleware {
  return (next, handlerContext) => (args) => {
    const call = startCall(operationCommand(args, handlerContext), options());
    if (!call) return next(args);
    let result: Promise<unknown>;
    try {
      result = context.with(owningCall(call.span.context), () => next(args));
    } catch (err) {
      fail(call, err);
      throw err;
    }
    return result.then(
      (handled) => {
        let out = handled;
        quietly(() => {
          if (!isObject(handled)) return see(call, undefined);
          const output = see(call, handled.output);
          if (output !== handled.output) out = { ...handled, output };
        });
        return out;
      },
      (err: unknown) => {
        fail(call, err);
        throw err;
      },
    );
  };
}
