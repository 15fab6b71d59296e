import { type Context, context, createContextKey, type HrTime } from "@opentelemetry/api";
import { currentObservedSpan } from "../../tracing/context.js";
import type { ToolCall } from "../../protocol/types.js";
import type { ManualSpan } from "../../tracing/manual-span.js";
import { toText } from "../../spans/serialize.js";
import { preciseNow } from "../../spans/time.js";
import { TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY } from "../../protocol/metadata-keys.js";
import { buildTestCase, type LlmTestCaseOption } from "../../spans/test-case.js";
import { updateCurrentSpan } from "../../tracing/update.js";
import type { ReadableMessage } from "../../semconv/messages.js";
import type { ReadWatch } from "./stream-ending.js";

/**
 * What the Anthropic and Google GenAI integrations share: reading tool calls as text, ending an
 * llm span with what a call gave, and tapping a stream in place. Nothing here throws.
 */

// Set by a method-level wrapper in the context it runs the SDK's method in: the model request
// below is recorded by that wrapper's span, so the net (integrations/net) leaves it alone.
const OWNED_MODEL_CALL = createContextKey("evaltrace.modelCallOwned");

/** `ctx` marked as the context of a model call that a method-level wrapper records (run the SDK's method in it). */
export function owningCall(ctx: Context): Context {
  return ctx.setValue(OWNED_MODEL_CALL, true);
}

/** Whether a method-level wrapper records the model call made in `ctx` (the current context by default). */
export function modelCallOwned(ctx: Context = context.active()): boolean {
  return ctx.getValue(OWNED_MODEL_CALL) === true;
}

/** A chat message as llm spans carry it: role and text, an assistant's `tool_calls` and a tool result's `tool_call_id` (the link to its call). */
export type Message = ReadableMessage;

/** Options every model-SDK wrapper takes. */
export interface ModelWrapOptions {
  /** Single-turn metric collection that evaluates each call online. */
  metricCollection?: string;
  /**
   * The test case of the online evaluation. `true` (the default when `metricCollection` is set)
   * uses the last user message as `input` and the reply as `actualOutput`; a function builds it.
   */
  llmTestCase?: LlmTestCaseOption;
}

/** What one call gave, assembled from a reply or from the events of a stream. */
export interface CallResult {
  output: string;
  model?: unknown;
  inputTokens?: unknown;
  outputTokens?: unknown;
  toolCalls: ToolCall[];
  metadata: Record<string, unknown>;
}

export const isObject = (v: unknown): v is Record<PropertyKey, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A tool call as one line of text (`lookup_order({"orderId":"A-1001"})`), so a reply of calls only still reads. */
export function callLine(name: string, args: unknown): string {
  return `${name}(${args === undefined ? "" : typeof args === "string" ? args : toText(args)})`;
}

/** A tool call for `toolsCalled`: arguments as an object (a JSON string parsed, anything else as `{value}`). */
export function toolCall(name: unknown, args: unknown): ToolCall {
  const call: ToolCall = { name: typeof name === "string" && name ? name : "tool" };
  let parsed = args;
  if (typeof args === "string") {
    try {
      parsed = args === "" ? undefined : JSON.parse(args);
    } catch {
      parsed = args;
    }
  }
  if (isObject(parsed)) call.inputParameters = parsed;
  else if (parsed !== undefined) call.inputParameters = { value: parsed };
  return call;
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The fields of a call's result: model, tokens, tool calls. */
function resultFields(result: CallResult): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (typeof result.model === "string" && result.model) fields.model = result.model;
  const inTokens = count(result.inputTokens);
  const outTokens = count(result.outputTokens);
  if (inTokens !== undefined) fields.inputTokenCount = inTokens;
  if (outTokens !== undefined) fields.outputTokenCount = outTokens;
  if (result.toolCalls.length > 0) fields.toolsCalled = result.toolCalls;
  return fields;
}

/** Ends an llm span with a call's result: model, tokens, tool calls, metadata, test case, output. */
export function finishCall(span: ManualSpan, options: ModelWrapOptions, input: Message[], result: CallResult): void {
  try {
    const fields = resultFields(result);
    const testCase = buildTestCase(options.llmTestCase, options.metricCollection, input, result.output);
    if (testCase) fields.llmTestCase = result.toolCalls.length > 0 ? { ...testCase, toolsCalled: result.toolCalls } : testCase;
    span.set(fields);
    setMetadata(span, { ...result.metadata, ...timingsOf(span, count(result.outputTokens)) });
  } catch {
    // Never break the app for a field: the span still ends below.
  }
  span.end(result.output);
}

/**
 * Ends an llm span whose stream did not reach its end (aborted, left by the app, never read):
 * ERRORED with `why`, keeping what had arrived (model, the tokens reported so far, tool calls,
 * metadata) and the text streamed so far as its output. No test case: the reply is not whole.
 */
export function cutCall(span: ManualSpan, result: CallResult, why: string): void {
  try {
    span.set(resultFields(result));
    setMetadata(span, { ...result.metadata, ...timingsOf(span) });
  } catch {
    // Never break the app for a field: the span still ends below.
  }
  span.fail(incomplete(why), result.output === "" ? undefined : result.output);
}

/** Merges `metadata` (undefined and null values left out) into an open span's metadata. Never throws. */
export function setMetadata(span: ManualSpan, metadata: Record<string, unknown>): void {
  quietly(() => {
    const kept = Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== undefined && v !== null));
    // ManualSpan has no metadata setter: the span is the current one inside its own context.
    if (Object.keys(kept).length > 0) context.with(span.context, () => updateCurrentSpan({ metadata: kept }));
  });
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The timings of one streamed call as metadata, from its start, first token and end (epoch
 * milliseconds) and output tokens: nothing that is not known (no first token: no timings; no
 * tokens, or no time after the first one: no rate).
 */
export function streamTimings(startMs: number, firstTokenMs: number | undefined, endMs: number, outputTokens: unknown): Record<string, number> {
  if (firstTokenMs === undefined || !Number.isFinite(startMs) || !Number.isFinite(firstTokenMs) || !Number.isFinite(endMs)) return {};
  const timings: Record<string, number> = { [TIME_TO_FIRST_TOKEN_KEY]: round2(Math.max(0, firstTokenMs - startMs)) };
  const tokens = count(outputTokens);
  const window = endMs - firstTokenMs;
  if (tokens !== undefined && tokens > 0 && window > 0) timings[TOKENS_PER_SECOND_KEY] = round2((tokens * 1000) / window);
  return timings;
}

const millis = ([s, ns]: HrTime) => s * 1000 + ns / 1e6;

/** The clock of a timed stream: its span's start, and when the first content arrived. */
interface StreamClock {
  startMs: number;
  firstMs?: number;
}

// Per llm span whose stream is tapped with `timing`: read when the call ends.
const clocks = new WeakMap<ManualSpan, StreamClock>();

function startClock(span: ManualSpan): StreamClock {
  const clock: StreamClock = { startMs: Number.NaN };
  quietly(() => {
    // The span opened when the request was made: the time to first token counts from there.
    const started = (currentObservedSpan(span.context) as { startTime?: HrTime } | undefined)?.startTime;
    if (started) clock.startMs = millis(started);
  });
  clocks.set(span, clock);
  return clock;
}

/** A timed stream's timings as of now (its end), for `outputTokens`; empty for a span whose stream was not timed. */
export function timingsOf(span: ManualSpan, outputTokens?: unknown): Record<string, number> {
  const clock = clocks.get(span);
  return clock ? streamTimings(clock.startMs, clock.firstMs, millis(preciseNow()), outputTokens) : {};
}

/** Runs `step`, swallowing what it throws: our bookkeeping never reaches the app. */
export function quietly(step: () => void): void {
  try {
    step();
  } catch {
    // ignored
  }
}

/** Handles of a tapped stream: what each item means, and how the stream ended. */
export interface StreamTap<Item> {
  /** Folds one item the app read into the result. */
  fold(item: Item): void;
  /** The stream ended (done); `complete` says whether it was whole (the app may have aborted it). */
  done(): void;
  /** The stream threw. */
  failed(err: unknown): void;
  /** The app stopped reading before the end (`break`, `return()`). */
  abandoned(): void;
  /**
   * Times the stream of this llm span: `content` says which items carry tokens (text, tool-call
   * arguments); the first of them is the first token. {@link finishCall} (or {@link timingsOf})
   * then puts the timings in the span's metadata; a stream that fails records its time to first token.
   */
  timing?: { span: ManualSpan; content(item: Item): boolean };
  /** Told of the iterator and of each read (so that `deliver()` knows whether anyone reads the stream). */
  reads?: ReadWatch;
}

/**
 * Wraps an async iterator so that every step the app takes is also seen by `tap`; the items,
 * errors and timing the app sees are the iterator's own.
 */
export function tapIterator<Item>(it: AsyncIterator<Item>, tap: StreamTap<Item>): AsyncIterator<Item> & AsyncIterable<Item> {
  let finished = false;
  const settle = (f: () => void) => {
    if (finished) return;
    finished = true;
    quietly(f);
  };
  const timing = tap.timing;
  const reads = tap.reads;
  const readEnded = () => {
    if (reads) quietly(() => reads.readEnded());
  };
  let clock: StreamClock | undefined;
  quietly(() => {
    if (timing) clock = startClock(timing.span);
  });
  const fold = (item: Item) => {
    if (clock && clock.firstMs === undefined) {
      quietly(() => {
        if (timing!.content(item)) clock!.firstMs = millis(preciseNow());
      });
    }
    tap.fold(item);
  };
  const failed = (err: unknown) => {
    if (timing) setMetadata(timing.span, timingsOf(timing.span));
    tap.failed(err);
  };
  const tapped: AsyncIterator<Item> & AsyncIterable<Item> = {
    next(...args: [] | [unknown]) {
      let step: Promise<IteratorResult<Item>>;
      if (reads)
        quietly(() => {
          reads.iterated();
          reads.readStarted();
        });
      try {
        step = it.next(...args);
      } catch (err) {
        readEnded();
        settle(() => failed(err));
        throw err;
      }
      return Promise.resolve(step).then(
        (r) => {
          readEnded();
          if (r?.done) settle(() => tap.done());
          else if (!finished) quietly(() => fold(r.value));
          return r;
        },
        (err: unknown) => {
          readEnded();
          settle(() => failed(err));
          throw err;
        },
      );
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  if (typeof it.return === "function") {
    tapped.return = (value?: unknown) => {
      settle(() => tap.abandoned());
      return it.return!(value as never);
    };
  }
  if (typeof it.throw === "function") {
    tapped.throw = (err?: unknown) => {
      settle(() => failed(err));
      return it.throw!(err);
    };
  }
  return tapped;
}

/** An error that says a stream ended before its end: the span is ERRORED, not a partial SUCCESS. */
export function incomplete(why: string): Error {
  const err = new Error(why);
  err.name = "StreamIncomplete";
  return err;
}
