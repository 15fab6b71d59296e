import type { ToolCall } from "../../protocol/types.js";
import type { ReadableToolCall } from "../../semconv/messages.js";
import { messageText } from "../../spans/message-text.js";
import { toText } from "../../spans/serialize.js";
import { type CallResult, callLine, isObject, type Message, toolCall } from "../kit/model-call.js";

/**
 * What a Google GenAI call reads as: its params as chat messages, and its replies (one, or the
 * chunks of a stream) as a call's result. Shared by the llm spans of `calls.ts` and the
 * automatic-function-calling run of `afc.ts`. Reads fields only (never the SDK's
 * getters, such as `text`, which warns on a function-call reply).
 */

/** `models/gemini-2.0-flash` → `gemini-2.0-flash`. */
export function modelName(model: unknown): unknown {
  return typeof model === "string" ? model.replace(/^models\//, "") : model;
}

/** The text of a list of parts; function calls as call lines (collected), responses as JSON. */
function partsText(parts: unknown, calls?: ToolCall[]): string {
  const list = Array.isArray(parts) ? parts : [parts];
  const out: string[] = [];
  for (const part of list) {
    if (typeof part === "string") out.push(part);
    else if (!isObject(part)) out.push(messageText(part));
    else if (typeof part.text === "string") {
      if (part.thought !== true) out.push(part.text);
    } else if (isObject(part.functionCall)) {
      calls?.push(toolCall(part.functionCall.name, part.functionCall.args));
      out.push(callLine(String(part.functionCall.name ?? "tool"), part.functionCall.args ?? {}));
    } else if (isObject(part.functionResponse)) {
      const r = part.functionResponse.response;
      out.push(typeof r === "string" ? r : toText(r ?? null));
    } else if (isObject(part.inlineData) || isObject(part.fileData)) {
      const data = (part.inlineData ?? part.fileData) as Record<string, unknown>;
      out.push(`[${typeof data.mimeType === "string" ? data.mimeType : "file"}]`);
    } else if (isObject(part.executableCode)) out.push(String(part.executableCode.code ?? ""));
    else if (isObject(part.codeExecutionResult)) out.push(String(part.codeExecutionResult.output ?? ""));
    else out.push(messageText(part));
  }
  return out.filter((s) => s !== "").join("\n");
}

const isContent = (v: unknown) => isObject(v) && ("parts" in v || "role" in v);

/** A model turn's function calls as the message's `tool_calls`: id (when the API gave one), name and arguments. */
function toolCallsOf(parts: unknown[]): ReadableToolCall[] {
  const out: ReadableToolCall[] = [];
  for (const p of parts) {
    if (!isObject(p) || !isObject(p.functionCall)) continue;
    const call = toolCall(p.functionCall.name, p.functionCall.args);
    const id = p.functionCall.id;
    const readable: ReadableToolCall = typeof id === "string" && id ? { id, name: call.name } : { name: call.name };
    if (call.inputParameters) readable.arguments = call.inputParameters as ReadableToolCall["arguments"];
    out.push(readable);
  }
  return out;
}

/**
 * One Content as messages: a turn of function responses only is one `tool` message per response
 * (its `tool_call_id` the response's `id`, when it has one); a turn with function calls lists
 * them as `tool_calls` (with each call's `id`, when it has one).
 */
function contentMessages(c: Record<string, unknown>): Message[] {
  const parts = Array.isArray(c.parts) ? c.parts : [];
  const onlyResponses = parts.length > 0 && parts.every((p) => isObject(p) && isObject(p.functionResponse));
  if (onlyResponses) {
    return (parts as { functionResponse: Record<string, unknown> }[]).map((p) => {
      const m: Message = { role: "tool", content: partsText([p]) };
      const id = p.functionResponse.id;
      if (typeof id === "string" && id) m.tool_call_id = id;
      return m;
    });
  }
  const role = c.role === "model" ? "assistant" : typeof c.role === "string" && c.role ? c.role : "user";
  const m: Message = { role, content: partsText(parts) };
  const calls = toolCallsOf(parts);
  if (calls.length > 0) m.tool_calls = calls;
  return [m];
}

/**
 * The call's input: the system instruction, then the contents as plain text. `contents` takes
 * what the SDK takes: a string, a Content, a Part, or a list of them (a list of parts and strings
 * is one user message).
 */
export function inputMessages(params: Record<string, unknown>): Message[] {
  const out: Message[] = [];
  const config = isObject(params.config) ? params.config : {};
  const system = config.systemInstruction;
  if (system !== undefined && system !== null) out.push({ role: "system", content: isContent(system) ? partsText((system as { parts?: unknown }).parts ?? []) : partsText(system) });
  const contents = params.contents;
  if (typeof contents === "string") out.push({ role: "user", content: contents });
  else if (Array.isArray(contents)) {
    if (contents.some(isContent)) {
      for (const c of contents) out.push(...(isContent(c) ? contentMessages(c as Record<string, unknown>) : [{ role: "user", content: partsText(c) }]));
    } else if (contents.length > 0) out.push({ role: "user", content: partsText(contents) });
  } else if (isContent(contents)) out.push(...contentMessages(contents as Record<string, unknown>));
  else if (contents !== undefined && contents !== null) out.push({ role: "user", content: partsText(contents) });
  return out;
}

type UsageMetadata = {
  promptTokenCount?: unknown;
  candidatesTokenCount?: unknown;
  thoughtsTokenCount?: unknown;
  cachedContentTokenCount?: unknown;
  toolUsePromptTokenCount?: unknown;
};

/**
 * One reply, or the chunks of a stream, as the call's result: the first candidate's parts (read
 * from the fields, never through the `text` getter), the last usage, model version and finish
 * reason.
 */
export function fromResponses(responses: unknown[]): CallResult {
  const toolCalls: ToolCall[] = [];
  const texts: string[] = [];
  let usage: UsageMetadata | undefined;
  let model: unknown;
  let finishReason: unknown;
  let pending = "";
  for (const r of responses) {
    if (!isObject(r)) continue;
    if (isObject(r.usageMetadata)) usage = r.usageMetadata as UsageMetadata;
    if (typeof r.modelVersion === "string") model = r.modelVersion;
    const candidate = Array.isArray(r.candidates) && isObject(r.candidates[0]) ? r.candidates[0] : undefined;
    if (!candidate) continue;
    if (candidate.finishReason) finishReason = candidate.finishReason;
    const parts = isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) {
      // Streamed text comes in pieces: join the pieces, and calls on their own lines.
      if (isObject(part) && typeof part.text === "string" && !isObject(part.functionCall)) {
        if (part.thought !== true) pending += part.text;
        continue;
      }
      if (pending) texts.push(pending);
      pending = "";
      const line = partsText([part], toolCalls);
      if (line) texts.push(line);
    }
  }
  if (pending) texts.push(pending);
  return {
    output: texts.join("\n"),
    model,
    inputTokens: usage?.promptTokenCount,
    outputTokens: usage?.candidatesTokenCount,
    toolCalls,
    metadata: {
      finishReason,
      cachedContentTokenCount: usage?.cachedContentTokenCount,
      thoughtsTokenCount: usage?.thoughtsTokenCount,
      toolUsePromptTokenCount: usage?.toolUsePromptTokenCount,
    },
  };
}
