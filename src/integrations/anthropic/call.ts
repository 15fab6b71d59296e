import type { ToolCall } from "../../protocol/types.js";
import type { ManualSpan } from "../../tracing/manual-span.js";
import { messageText } from "../../spans/message-text.js";
import type { ReadableToolCall } from "../../semconv/messages.js";
import { type CallResult, callLine, cutCall, finishCall, isObject, type Message, type ModelWrapOptions, tapIterator, toolCall } from "../kit/model-call.js";
import { abortedWhy, HeldStream, STOPPED_READING } from "../kit/stream-ending.js";
import { watchApiPromise } from "../kit/api-promise-watch.js";
import { whenIterated } from "../kit/iterated-once.js";

/**
 * What an Anthropic call reads as: its request as the span's input (the system prompt, messages,
 * tool use and tool results), its reply or its stream's events as the call's result, and how the
 * call is watched until it ends (`observe`).
 */

/**
 * Watches the call without touching what the app reads from it (see `kit/api-promise-watch.ts`):
 * a failed request, the parsed reply wherever the SDK parses it (the app's promise, or a helper's:
 * `messages.stream()`, a tool runner, a message thread), a stream when it is read, and a raw
 * `.asResponse()` read through a clone of the body.
 */
export function observe(result: unknown, streamed: boolean, span: ManualSpan, options: ModelWrapOptions, input: Message[], signal: AbortSignal | undefined): void {
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
export function inputMessages(params: Record<string, unknown>): Message[] {
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
