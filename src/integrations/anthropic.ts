import { context } from "@opentelemetry/api";
import { registry } from "../runtime/registry.js";
import type { ToolCall } from "../protocol/types.js";
import { type ManualSpan, openSpan } from "../tracing/manual-span.js";
import { messageText } from "../spans/message-text.js";
import type { ReadableToolCall } from "../semconv/messages.js";
import { type CallResult, callLine, cutCall, finishCall, isObject, type Message, type ModelWrapOptions, owningCall, quietly, tapIterator, toolCall } from "./kit/model-call.js";
import { netStainlessClient } from "./net/index.js";
import { abortedWhy, HeldStream, STOPPED_READING } from "./kit/stream-ending.js";
import { watchApiPromise } from "./kit/api-promise-watch.js";
import { whenIterated } from "./kit/iterated-once.js";
import { reportUnexpectedClient, reportWrapFailure } from "./kit/unexpected-client.js";

/** Options of {@link wrapAnthropic}. */
export interface WrapAnthropicOptions extends ModelWrapOptions {}

/** Where a wrapped `messages` resource keeps its state (shared by every copy of evaltrace). */
const WRAPPED = Symbol.for("evaltrace.anthropic.wrapped");

type Fn = (...args: unknown[]) => unknown;
type State = { options: WrapAnthropicOptions };

/**
 * Instruments an Anthropic client (`@anthropic-ai/sdk`) in place and returns it: every
 * `messages.create` (streamed or not), `messages.stream` and `messages.parse`, and the same on
 * `beta.messages`, becomes one llm span: model, provider `Anthropic`, the system prompt and
 * messages as plain text (tool use and tool results included), the reply's text, its tool calls
 * as `toolsCalled`, token counts (the cache tokens in metadata), and errors. A stream's span ends
 * when the stream ends; a stream that ends early (aborted, or left with `break`) is ERRORED.
 *
 * The client stays the app's own object: the SDK's promises (`.withResponse()`, `.asResponse()`),
 * streams, errors and their timing are exactly what the raw client gives. Wrapping twice is
 * wrapping once (the latest options apply); a `withOptions()` copy is wrapped too.
 *
 * When an `EvaltraceSpanProcessor` sees the app's OpenTelemetry spans, the SDK's own span of a
 * call would be a second llm span of it: the wrapped client does not start it (the call is still
 * traced once, by this span; the app's other exporters then miss that one SDK span).
 *
 * @example
 * import Anthropic from "@anthropic-ai/sdk";
 * import { wrapAnthropic } from "evaltrace/anthropic";
 * const anthropic = wrapAnthropic(new Anthropic(), { metricCollection: "answers" });
 */
export function wrapAnthropic<T extends object>(client: T, options: WrapAnthropicOptions = {}): T {
  try {
    const messages = (client as { messages?: unknown }).messages;
    if (!isObject(messages)) {
      reportUnexpectedClient("wrapAnthropic", "the client has no messages");
      return client;
    }
    const existing = messages[WRAPPED] as State | undefined;
    if (existing) {
      existing.options = options;
      return client;
    }
    const state: State = { options };
    if (!wrapResource(client, messages, "anthropic.messages", state)) {
      reportUnexpectedClient("wrapAnthropic", "the client has no messages.create");
      return client;
    }
    // The beta surface has the same shape; it shares the options.
    const beta = (client as { beta?: { messages?: unknown } }).beta;
    if (isObject(beta) && isObject(beta.messages)) wrapResource(client, beta.messages, "anthropic.beta.messages", state);
    netStainlessClient("anthropic", client);
    const withOptions = (client as { withOptions?: unknown }).withOptions;
    if (typeof withOptions === "function") {
      define(client, "withOptions", function (this: unknown, ...args: unknown[]) {
        const copy = (withOptions as Fn).apply(this, args);
        return copy && typeof copy === "object" ? wrapAnthropic(copy, state.options) : copy;
      });
    }
  } catch (err) {
    // A client we cannot read is left as it is.
    reportWrapFailure("wrapAnthropic", err);
  }
  return client;
}

/** Patches one messages resource (`create`, and `stream` for the SDK's span); false when it has no `create`. */
function wrapResource(client: object, res: Record<PropertyKey, unknown>, name: string, state: State): boolean {
  if (res[WRAPPED]) return true;
  const create = res.create;
  const stream = res.stream;
  if (typeof create !== "function") return false;
  define(res, WRAPPED, state);
  define(res, "create", patchedCreate(client, res, create as Fn, name, state));
  if (typeof stream === "function") define(res, "stream", withoutSdkSpan(client, stream as Fn));
  return true;
}

function define(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
}

/**
 * Runs `call` with the client's own OpenTelemetry tracer put aside when an EvaltraceSpanProcessor
 * would read its span: the SDK starts its call span synchronously inside `create` / `stream`, so
 * only that start is affected, not what the app runs later.
 */
function runWithoutSdkSpan<R>(client: object, call: () => R): R {
  const sdk = client as { _tracer?: unknown };
  let saved: unknown;
  let swapped = false;
  try {
    if (registry().bridged && sdk._tracer !== undefined && Object.hasOwn(sdk, "_tracer")) {
      saved = sdk._tracer;
      sdk._tracer = undefined;
      swapped = true;
    }
  } catch {
    swapped = false;
  }
  try {
    return call();
  } finally {
    if (swapped) quietly(() => (sdk._tracer = saved));
  }
}

function withoutSdkSpan(client: object, original: Fn): Fn {
  return function stream(this: unknown, ...args: unknown[]) {
    return runWithoutSdkSpan(client, () => original.apply(this, args));
  };
}

function patchedCreate(client: object, resource: object, original: Fn, name: string, state: State): Fn {
  return function create(this: unknown, ...args: unknown[]) {
    const self = this ?? resource;
    const params = args[0];
    const requestOptions = args[1];
    let span: ManualSpan | undefined;
    let input: Message[] = [];
    let streamed = false;
    try {
      const p = isObject(params) ? params : {};
      streamed = p.stream === true;
      input = inputMessages(p);
      const helper = isObject(requestOptions) && isObject(requestOptions.headers) ? requestOptions.headers["x-stainless-helper-method"] : undefined;
      span = openSpan(`${name}.${helper === "stream" ? "stream" : "create"}`, "llm", { model: p.model, provider: "Anthropic" }, input);
      if (span) {
        span.setIntegration("Anthropic");
        if (state.options.metricCollection) span.set({ metricCollection: state.options.metricCollection });
      }
    } catch {
      span = undefined;
    }
    if (!span) return original.apply(self, args);
    const open = span;
    let result: unknown;
    try {
      result = context.with(owningCall(open.context), () => runWithoutSdkSpan(client, () => original.apply(self, args)));
    } catch (err) {
      open.fail(err);
      throw err;
    }
    const signal = isObject(requestOptions) && typeof AbortSignal !== "undefined" && requestOptions.signal instanceof AbortSignal ? requestOptions.signal : undefined;
    quietly(() => observe(result, streamed, open, state.options, input, signal));
    return result;
  };
}

/**
 * Watches the call without touching what the app reads from it (see `kit/api-promise-watch.ts`):
 * a failed request, the parsed reply wherever the SDK parses it (the app's promise, or a helper's:
 * `messages.stream()`, a tool runner, a message thread), a stream when it is read, and a raw
 * `.asResponse()` read through a clone of the body.
 */
function observe(result: unknown, streamed: boolean, span: ManualSpan, options: WrapAnthropicOptions, input: Message[], signal: AbortSignal | undefined): void {
  let over = false;
  const finish = (r: CallResult) => {
    if (over) return;
    over = true;
    finishCall(span, options, input, r);
  };
  const fail = (err: unknown) => {
    if (over) return;
    over = true;
    span.fail(err);
  };
  let seen = false;
  const see = (value: unknown) => {
    if (seen || over) return;
    seen = true;
    if (streamed && isObject(value) && typeof value[Symbol.asyncIterator] === "function") tapStream(value, span, finish, signal);
    else finish(fromMessage(value));
  };
  const raw = (response: unknown) => {
    if (seen || over) return;
    seen = true;
    // Read raw by the app: a non-streamed body is read from a clone; a stream's is the app's.
    if (streamed) finish({ output: "", toolCalls: [], metadata: { note: "stream read raw by the app (asResponse)" } });
    else if (!(response instanceof Response)) finish({ output: "", toolCalls: [], metadata: {} });
    else
      response
        .clone()
        .json()
        .then(
          (body: unknown) => finish(fromMessage(body)),
          () => finish({ output: "", toolCalls: [], metadata: {} }),
        );
  };
  if (watchApiPromise(result, { see, fail, raw })) return;
  // Not the APIPromise we know: observe it as a promise.
  void Promise.resolve(result).then(see, fail);
}

/** The text of a content block list, tool use as call lines; collects tool calls. */
function blocksText(content: unknown, calls?: ToolCall[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : messageText(content);
  const out: string[] = [];
  for (const block of content) {
    if (!isObject(block)) {
      out.push(messageText(block));
      continue;
    }
    switch (block.type) {
      case "text":
        out.push(typeof block.text === "string" ? block.text : messageText(block.text));
        break;
      case "tool_use":
      case "server_tool_use":
        calls?.push(toolCall(block.name, block.input));
        out.push(callLine(String(block.name ?? "tool"), block.input));
        break;
      case "tool_result":
        out.push(blocksText(block.content));
        break;
      case "thinking":
      case "redacted_thinking":
        break;
      case "image":
      case "document":
        out.push(`[${block.type}]`);
        break;
      default:
        out.push(typeof block.text === "string" ? block.text : messageText(block));
    }
  }
  return out.filter((s) => s !== "").join("\n");
}

/** An assistant's `tool_use` blocks as the message's `tool_calls`: id, name and arguments. */
function toolCallsOf(blocks: unknown[]): ReadableToolCall[] {
  const out: ReadableToolCall[] = [];
  for (const b of blocks) {
    if (!isObject(b) || (b.type !== "tool_use" && b.type !== "server_tool_use")) continue;
    const call = toolCall(b.name, b.input);
    const readable: ReadableToolCall = typeof b.id === "string" && b.id ? { id: b.id, name: call.name } : { name: call.name };
    if (call.inputParameters) readable.arguments = call.inputParameters as ReadableToolCall["arguments"];
    out.push(readable);
  }
  return out;
}

/**
 * The call's input: the system prompt, then each message as plain text. An assistant's tool use
 * is also its `tool_calls` (with each `tool_use.id`); a user message of tool results is one
 * `tool` message per result, whose `tool_call_id` is its `tool_use_id`.
 */
function inputMessages(params: Record<string, unknown>): Message[] {
  const out: Message[] = [];
  if (params.system !== undefined && params.system !== null) out.push({ role: "system", content: blocksText(params.system) });
  if (!Array.isArray(params.messages)) return out;
  for (const m of params.messages) {
    if (!isObject(m)) continue;
    const blocks = Array.isArray(m.content) ? m.content : [];
    const onlyResults = blocks.length > 0 && blocks.every((b) => isObject(b) && b.type === "tool_result");
    if (onlyResults) {
      for (const b of blocks as Record<string, unknown>[]) {
        const result: Message = { role: "tool", content: blocksText(b.content) };
        if (typeof b.tool_use_id === "string" && b.tool_use_id) result.tool_call_id = b.tool_use_id;
        out.push(result);
      }
      continue;
    }
    const message: Message = { role: String(m.role ?? "user"), content: blocksText(m.content) };
    const calls = toolCallsOf(blocks);
    if (calls.length > 0) message.tool_calls = calls;
    out.push(message);
  }
  return out;
}

type Usage = { input_tokens?: unknown; output_tokens?: unknown; cache_creation_input_tokens?: unknown; cache_read_input_tokens?: unknown };

function usageMetadata(usage: Usage | undefined, stopReason: unknown): Record<string, unknown> {
  return { stopReason, cacheCreationInputTokens: usage?.cache_creation_input_tokens, cacheReadInputTokens: usage?.cache_read_input_tokens };
}

/** A reply (`Message`) as the call's result. */
function fromMessage(value: unknown): CallResult {
  const m = isObject(value) ? value : {};
  const usage = (isObject(m.usage) ? m.usage : undefined) as Usage | undefined;
  const toolCalls: ToolCall[] = [];
  const output = blocksText(m.content, toolCalls);
  return { output, model: m.model, inputTokens: usage?.input_tokens, outputTokens: usage?.output_tokens, toolCalls, metadata: usageMetadata(usage, m.stop_reason) };
}

type Controlled = { controller?: { signal?: AbortSignal } };

/**
 * Taps the SDK's `Stream` when it is first read (through its class, `kit/iterated-once.ts`:
 * `for await`, `tee()`, `toReadableStream()` and every helper that reads it: a tee()d stream is
 * recorded once): the events fold into the reply; the span ends at `message_stop`'s end of stream, or
 * ERRORED when the stream fails, or when it does not reach `message_stop`: aborted (its
 * controller, the request's `signal`: `aborted: <reason>`), left by the app (`break`), ended
 * early, or never read by the time `deliver()` sends it. Cut short, the span keeps what had
 * arrived: the model, the usage of `message_start` and the text so far.
 */
function tapStream(stream: Record<PropertyKey, unknown>, span: ManualSpan, finish: (r: CallResult) => void, signal: AbortSignal | undefined): void {
  const blocks: { type?: unknown; name?: unknown; id?: unknown; text: string; json: string }[] = [];
  let model: unknown;
  let usage: Usage = {};
  let stopReason: unknown;
  let stopped = false;
  const fold = (event: unknown) => {
    if (!isObject(event)) return;
    switch (event.type) {
      case "message_start": {
        const message = isObject(event.message) ? event.message : {};
        model = message.model;
        if (isObject(message.usage)) usage = { ...message.usage };
        break;
      }
      case "content_block_start": {
        const b = isObject(event.content_block) ? event.content_block : {};
        blocks[Number(event.index) || 0] = { type: b.type, name: b.name, id: b.id, text: typeof b.text === "string" ? b.text : "", json: "" };
        break;
      }
      case "content_block_delta": {
        const slot = (blocks[Number(event.index) || 0] ??= { text: "", json: "" });
        const d = isObject(event.delta) ? event.delta : {};
        if (d.type === "text_delta" && typeof d.text === "string") slot.text += d.text;
        if (d.type === "input_json_delta" && typeof d.partial_json === "string") slot.json += d.partial_json;
        break;
      }
      case "message_delta": {
        if (isObject(event.usage)) for (const [k, v] of Object.entries(event.usage)) if (v !== null && v !== undefined) (usage as Record<string, unknown>)[k] = v;
        if (isObject(event.delta) && event.delta.stop_reason) stopReason = event.delta.stop_reason;
        break;
      }
      case "message_stop":
        stopped = true;
        break;
    }
  };
  const content = () =>
    blocks.filter(Boolean).map((b) => (b.type === "tool_use" || b.type === "server_tool_use" ? { type: b.type, name: b.name, id: b.id, input: parseJson(b.json) } : { type: b.type, text: b.text }));
  const reply = () => fromMessage({ model, content: content(), usage, stop_reason: stopReason });
  const held = new HeldStream(span, (why) => cutCall(span, reply(), why));
  // The SDK ends an aborted stream quietly (as if done): the request's signal, or the stream's controller, says it was aborted.
  const abortedBy = (): AbortSignal | undefined => (signal?.aborted ? signal : (stream as Controlled).controller?.signal?.aborted ? (stream as Controlled).controller?.signal : undefined);
  const ended = (early: boolean) => {
    const by = abortedBy();
    if (stopped) held.settle(() => finish(reply()));
    else if (by) held.cutShort(abortedWhy(by.reason));
    else held.cutShort(early ? STOPPED_READING : "stream ended before message_stop");
  };
  const tap = {
    fold,
    // Text, thinking and tool-input deltas are output tokens; message_start is not.
    timing: { span, content: (event: unknown) => isObject(event) && event.type === "content_block_delta" },
    reads: held,
    done: () => ended(false),
    failed: (err: unknown) => held.settle(() => span.fail(err)),
    abandoned: () => ended(true),
  };
  // Every way of reading the SDK's Stream (`for await`, `tee()`, `toReadableStream()`, the
  // helpers' own loops) asks its class for the iterator: seen there, the stream is left as it is.
  whenIterated(stream, (it) => tapIterator(it, tap));
}

function parseJson(text: string): unknown {
  if (text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
