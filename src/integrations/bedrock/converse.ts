import type { ReadableMessage } from "../../semconv/messages.js";
import { isObject } from "../kit/model-call.js";
import { anyText, idOf, type Part, type PartsMessage, readableMessages, systemMessage } from "./messages.js";
import type { Reply, StreamFolder } from "./reply.js";

/**
 * The Converse shapes (API reference "Converse", "ConverseStream", "ContentBlock"): content
 * blocks `{text}`, `{toolUse: {toolUseId, name, input}}`, `{toolResult: {toolUseId, content}}`,
 * media and documents; a reply's `output.message`, `stopReason`, `usage`, `metrics`; the stream's
 * events. Amazon Nova's InvokeModel body and chunks have the same shapes, so its family reads them here.
 */

/** Block kinds shown by name only: media, documents and the like. */
const LABELLED = ["image", "document", "video", "audio"] as const;

/** A tool result's content blocks (`{text}`, `{json}`, media) as text. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return anyText(content);
  return content
    .map((b) => {
      if (!isObject(b)) return anyText(b);
      if (typeof b.text === "string") return b.text;
      if (b.json !== undefined) return anyText(b.json);
      const label = LABELLED.find((k) => b[k] !== undefined);
      return label ? `[${label}]` : "";
    })
    .filter((s) => s !== "")
    .join("\n");
}

/** One content block as a part; reasoning, cache points and unknown blocks as nothing. */
function blockPart(block: unknown): Part | undefined {
  if (!isObject(block)) return undefined;
  if (typeof block.text === "string") return { kind: "text", text: block.text };
  if (isObject(block.toolUse)) {
    const use = block.toolUse;
    return { kind: "call", id: idOf(use.toolUseId), name: typeof use.name === "string" ? use.name : "tool", input: use.input };
  }
  if (isObject(block.toolResult)) return { kind: "result", id: idOf(block.toolResult.toolUseId), text: resultText(block.toolResult.content) };
  if (isObject(block.guardContent) && isObject(block.guardContent.text)) return { kind: "text", text: anyText(block.guardContent.text.text) };
  if (isObject(block.citationsContent) && Array.isArray(block.citationsContent.content)) return { kind: "text", text: resultText(block.citationsContent.content) };
  const label = LABELLED.find((k) => block[k] !== undefined);
  return label ? { kind: "other", label: `[${label}]` } : undefined;
}

/** Content blocks as parts. */
export function converseParts(content: unknown): Part[] {
  return Array.isArray(content) ? content.map(blockPart).filter((p): p is Part => p !== undefined) : [];
}

/** A Converse request's (or Nova body's) messages, system prompt first, as llm input. */
export function converseInput(request: Record<string, unknown>): ReadableMessage[] {
  const messages: PartsMessage[] = [...systemMessage(request.system)];
  if (Array.isArray(request.messages)) {
    for (const m of request.messages) if (isObject(m)) messages.push({ role: typeof m.role === "string" ? m.role : "user", parts: converseParts(m.content) });
  }
  return readableMessages(messages);
}

/** A usage object's cache tokens, in Converse's names and Nova's. */
function cacheTokens(usage: Record<string, unknown>): Record<string, unknown> {
  return { cacheReadInputTokens: usage.cacheReadInputTokens ?? usage.cacheReadInputTokenCount, cacheWriteInputTokens: usage.cacheWriteInputTokens ?? usage.cacheWriteInputTokenCount };
}

/** A Converse reply (or a Nova InvokeModel body): its message's parts, usage, stop reason and latency. */
export function converseReply(value: unknown): Reply {
  const r = isObject(value) ? value : {};
  const message = isObject(r.output) && isObject(r.output.message) ? r.output.message : {};
  const usage = isObject(r.usage) ? r.usage : {};
  const metrics = isObject(r.metrics) ? r.metrics : {};
  return { parts: converseParts(message.content), inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, metadata: { stopReason: r.stopReason, latencyMs: metrics.latencyMs, ...cacheTokens(usage) } };
}

/**
 * Folds ConverseStream events (and Nova's stream chunks, which have their shapes): text and tool
 * input deltas by `contentBlockIndex`, tool names and ids from `contentBlockStart`, the stop
 * reason from `messageStop` (the end of the message) and usage from `metadata`.
 */
export function converseFolder(): StreamFolder {
  const blocks: { text: string; json: string; id?: string; name?: string; tool: boolean }[] = [];
  let stopReason: unknown;
  let stopped = false;
  let usage: Record<string, unknown> = {};
  let latencyMs: unknown;
  const slot = (index: unknown) => (blocks[Number(index) || 0] ??= { text: "", json: "", tool: false });
  return {
    fold(event) {
      if (!isObject(event)) return;
      if (isObject(event.contentBlockStart)) {
        const start = isObject(event.contentBlockStart.start) ? event.contentBlockStart.start : {};
        const b = slot(event.contentBlockStart.contentBlockIndex);
        if (isObject(start.toolUse)) Object.assign(b, { tool: true, id: idOf(start.toolUse.toolUseId), name: typeof start.toolUse.name === "string" ? start.toolUse.name : "tool" });
      } else if (isObject(event.contentBlockDelta)) {
        const delta = isObject(event.contentBlockDelta.delta) ? event.contentBlockDelta.delta : {};
        const b = slot(event.contentBlockDelta.contentBlockIndex);
        if (typeof delta.text === "string") b.text += delta.text;
        if (isObject(delta.toolUse) && typeof delta.toolUse.input === "string") b.json += delta.toolUse.input;
      } else if (isObject(event.messageStop)) {
        stopped = true;
        stopReason = event.messageStop.stopReason;
      } else if (isObject(event.metadata)) {
        if (isObject(event.metadata.usage)) usage = event.metadata.usage;
        if (isObject(event.metadata.metrics)) latencyMs = event.metadata.metrics.latencyMs;
      }
    },
    content: (event) => isObject(event) && isObject(event.contentBlockDelta),
    complete: () => stopped,
    reply(): Reply {
      const parts: Part[] = blocks.filter(Boolean).map((b) => (b.tool ? { kind: "call", id: b.id, name: b.name ?? "tool", input: b.json } : { kind: "text", text: b.text }));
      return { parts, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, metadata: { stopReason, latencyMs, ...cacheTokens(usage) } };
    },
  };
}
