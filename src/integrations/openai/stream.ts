import type { FoundToolCall } from "../../semconv/types.js";
import type { ManualSpan } from "../../tracing/manual-span.js";
import { callLine, setMetadata, tapIterator, timingsOf } from "../kit/model-call.js";
import { abortedWhy, HeldStream, STOPPED_READING } from "../kit/stream-ending.js";
import { whenIterated } from "../kit/iterated-once.js";

/** Usage as the three endpoints report it. */
export type Usage = { prompt_tokens?: number; completion_tokens?: number; input_tokens?: number; output_tokens?: number };

/** What a call produced, read from the parsed response or the stream. */
export interface CallResult {
  output: string;
  model?: unknown;
  usage?: Usage;
  toolCalls: FoundToolCall[];
}

type Api = "chat" | "responses" | "embeddings";

/** Responses events that carry output tokens: the first of them is the first token. */
const CONTENT_EVENTS: ReadonlySet<unknown> = new Set(["response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta", "response.reasoning_summary_text.delta"]);

/** Whether a stream item carries output tokens (text, a refusal, tool-call arguments). */
function hasContent(api: Api, item: unknown): boolean {
  if (api !== "chat") return CONTENT_EVENTS.has((item as ResponseEvent).type);
  const delta = (item as ChatChunk).choices?.[0]?.delta;
  return Boolean((typeof delta?.content === "string" && delta.content) || (typeof delta?.refusal === "string" && delta.refusal) || delta?.tool_calls?.length);
}

/** A stream chunk's parts that say something about the call. */
type ChatChunk = {
  model?: unknown;
  usage?: Usage;
  choices?: { delta?: { content?: unknown; refusal?: unknown; tool_calls?: { index: number; function?: { name?: string; arguments?: string } }[] } }[];
};
type ResponseEvent = {
  type?: string;
  delta?: unknown;
  item?: { type?: string; name?: string; arguments?: string };
  response?: { model?: unknown; usage?: Usage };
};

function argumentsOf(text: string): FoundToolCall["inputParameters"] {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as FoundToolCall["inputParameters"]) : undefined;
  } catch {
    return undefined;
  }
}

/** How a streamed call ends: whole, failed, or cut short (with what it had streamed). */
export interface StreamEnds {
  end(r: CallResult): void;
  fail(err: unknown): void;
  cut(r: CallResult, why: string): void;
}

type Controlled = { controller?: { signal?: AbortSignal } };

/**
 * Taps the SDK's stream: every chunk the app reads is also folded into the call's
 * result, and the call ends when the stream ends (`end`), fails (`fail`), or does not reach its
 * end (`cut`, with what was read: aborted by its controller or by the request's `signal`, left
 * by the app with `break`, or, at `deliver()`, never read). The stream's first iterator is
 * tapped where its class makes it (`kit/iterated-once.ts`), which `for await`, `tee()` (both
 * branches read one tapped iterator: the call is recorded once), `toReadableStream()` and the
 * helpers' own loops all go through. The stream object and what it yields are left as they are.
 * With the call's `span`, its timings (time to first token, output tokens per second) go in its
 * metadata.
 */
export function tapOpenAIStream(stream: AsyncIterable<unknown>, api: Api, ends: StreamEnds, span: ManualSpan, signal?: AbortSignal): void {
  let output = "";
  let model: unknown;
  let usage: Usage | undefined;
  const calls: { name?: string; arguments: string }[] = [];
  const fold = (chunk: unknown) => {
    if (api === "chat") {
      const c = chunk as ChatChunk;
      model ??= c.model;
      if (c.usage) usage = c.usage;
      const delta = c.choices?.[0]?.delta;
      if (typeof delta?.content === "string") output += delta.content;
      for (const tc of delta?.tool_calls ?? []) {
        const slot = (calls[tc.index] ??= { arguments: "" });
        if (tc.function?.name) slot.name = tc.function.name;
        if (tc.function?.arguments) slot.arguments += tc.function.arguments;
      }
    } else {
      const e = chunk as ResponseEvent;
      if (e.type === "response.output_text.delta" && typeof e.delta === "string") output += e.delta;
      if (e.type === "response.output_item.done" && e.item?.type === "function_call") calls.push({ name: e.item.name, arguments: e.item.arguments ?? "" });
      if (e.response?.model) model = e.response.model;
      if (e.response?.usage) usage = e.response.usage;
    }
  };
  const result = (): CallResult => {
    const toolCalls = calls.filter((c) => c !== undefined).map((c) => ({ name: c.name ?? "tool", inputParameters: argumentsOf(c.arguments) }));
    const lines = toolCalls.map((c) => callLine(c.name, c.inputParameters));
    return { output: [output, ...lines].filter((s) => s).join("\n"), model, usage, toolCalls };
  };
  const held = new HeldStream(span, (why) => {
    setMetadata(span, timingsOf(span));
    ends.cut(result(), why);
  });
  // The SDK ends an aborted stream quietly (as if done): the request's signal, or the stream's controller, says it was aborted.
  const abortedBy = (): AbortSignal | undefined => (signal?.aborted ? signal : (stream as Controlled).controller?.signal?.aborted ? (stream as Controlled).controller?.signal : undefined);
  const settle = (early: boolean) => {
    const by = abortedBy();
    if (by) held.cutShort(abortedWhy(by.reason));
    else if (early) held.cutShort(STOPPED_READING);
    else
      held.settle(() => {
        const r = result();
        setMetadata(span, timingsOf(span, r.usage?.completion_tokens ?? r.usage?.output_tokens));
        ends.end(r);
      });
  };
  const tap = {
    fold,
    done: () => settle(false),
    failed: (err: unknown) => held.settle(() => ends.fail(err)),
    abandoned: () => settle(true),
    timing: { span, content: (item: unknown) => hasContent(api, item) },
    reads: held,
  };
  // Every way of reading the SDK's Stream asks its class for the iterator: seen there, the stream is left as it is.
  whenIterated(stream, (it) => tapIterator(it, tap));
}
