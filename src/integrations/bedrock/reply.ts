import type { CallResult } from "../kit/model-call.js";
import { callsOf, type Part, partsText } from "./messages.js";

/** What one Bedrock call gave, in any body format: the reply's parts, its usage as reported, and metadata. */
export interface Reply {
  parts: Part[];
  /** Input tokens exactly as the reply's usage says (undefined when it says nothing). */
  inputTokens?: unknown;
  /** Output tokens exactly as the reply's usage says. */
  outputTokens?: unknown;
  /** Stop reason, latency, cache tokens...: undefined values are left out. */
  metadata: Record<string, unknown>;
}

/** Reads a stream item by item into a {@link Reply}. */
export interface StreamFolder {
  /** Folds one item the app read. */
  fold(item: unknown): void;
  /** Whether an item carries output (text or tool input): the first one is the first token. */
  content(item: unknown): boolean;
  /** Whether the message's end was seen (a stream that stops before it was cut short). */
  complete(): boolean;
  reply(): Reply;
}

/**
 * A reply as the call's result: the text, tool calls as `name(arguments)` lines, the calls as
 * `toolsCalled`, and their ids (in the same order) as the `toolCallIds` metadata.
 */
export function callResult(reply: Reply, extra: Record<string, unknown> = {}): CallResult {
  const { toolCalls, ids } = callsOf(reply.parts);
  const metadata: Record<string, unknown> = { ...reply.metadata, ...extra };
  if (ids.some((id) => id !== "")) metadata.toolCallIds = ids;
  return { output: partsText(reply.parts), inputTokens: reply.inputTokens, outputTokens: reply.outputTokens, toolCalls, metadata };
}
