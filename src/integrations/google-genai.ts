import { context } from "@opentelemetry/api";
import type { ToolCall } from "../protocol/types.js";
import { type ManualSpan, openSpan } from "../tracing/manual-span.js";
import { messageText } from "../spans/message-text.js";
import { toText } from "../spans/serialize.js";
import { type CallResult, callLine, finishCall, incomplete, isObject, type Message, type ModelWrapOptions, quietly, tapIterator, toolCall } from "./model-call.js";

/** Options of {@link wrapGoogleGenAI}. */
export interface WrapGoogleGenAIOptions extends ModelWrapOptions {}

/** Where a wrapped `models` module keeps its state (shared by every copy of evaltrace). */
const WRAPPED = Symbol.for("evaltrace.google-genai.wrapped");

type Fn = (...args: unknown[]) => unknown;
type State = { options: WrapGoogleGenAIOptions };

/**
 * Instruments a Google GenAI client (`@google/genai`) in place and returns it: every
 * `models.generateContent` and `models.generateContentStream` (and so every `chats` message)
 * becomes one llm span: model, provider `Gemini`, the system instruction and contents as plain
 * text (function calls and function responses included), the reply's text, its function calls as
 * `toolsCalled`, token counts, and errors. A stream's span ends when the stream ends; one that
 * fails or is left before its last chunk is recorded as ERRORED.
 *
 * The SDK assigns these methods on each `models` object, so the wrapper patches that object (not
 * the class). The promises, responses, generators and errors the app gets are the SDK's own, and
 * the reply's `text` getter is never read (it warns on a function-call reply). Wrapping twice is
 * wrapping once (the latest options apply).
 *
 * @example
 * import { GoogleGenAI } from "@google/genai";
 * import { wrapGoogleGenAI } from "evaltrace/google-genai";
 * const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey }), { metricCollection: "answers" });
 */
export function wrapGoogleGenAI<T extends object>(client: T, options: WrapGoogleGenAIOptions = {}): T {
  try {
    const models = (client as { models?: unknown }).models;
    if (!isObject(models)) return client;
    const existing = models[WRAPPED] as State | undefined;
    if (existing) {
      existing.options = options;
      return client;
    }
    const state: State = { options };
    const generate = models.generateContent;
    const stream = models.generateContentStream;
    define(models, WRAPPED, state);
    if (typeof generate === "function") define(models, "generateContent", patched(models, generate as Fn, false, state));
    if (typeof stream === "function") define(models, "generateContentStream", patched(models, stream as Fn, true, state));
  } catch {
    // A client we cannot read is left as it is.
  }
  return client;
}

function define(target: object, key: PropertyKey, value: unknown): void {
  // The SDK's own methods are writable, enumerable instance fields: keep them so.
  const own = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
}

function patched(models: object, original: Fn, streamed: boolean, state: State): Fn {
  return function (this: unknown, ...args: unknown[]) {
    const self = this ?? models;
    let span: ManualSpan | undefined;
    let input: Message[] = [];
    try {
      const p = isObject(args[0]) ? args[0] : {};
      input = inputMessages(p);
      span = openSpan(streamed ? "gemini.generateContentStream" : "gemini.generateContent", "llm", { model: modelName(p.model), provider: "Gemini" }, input);
      if (span) {
        span.setIntegration("Google GenAI");
        if (state.options.metricCollection) span.set({ metricCollection: state.options.metricCollection });
      }
    } catch {
      span = undefined;
    }
    if (!span) return original.apply(self, args);
    const open = span;
    let result: unknown;
    try {
      result = context.with(open.context, () => original.apply(self, args));
    } catch (err) {
      open.fail(err);
      throw err;
    }
    const finish = (r: CallResult) => finishCall(open, state.options, input, r);
    quietly(() =>
      Promise.resolve(result).then(
        (value) =>
          quietly(() => {
            if (streamed && isObject(value) && typeof value.next === "function") tapGenerator(value, open, finish);
            else finish(fromResponses([value]));
          }),
        (err: unknown) => open.fail(err),
      ),
    );
    // The SDK's own promise, so the app sees exactly what the raw client gives.
    return result;
  };
}

/** `models/gemini-2.0-flash` → `gemini-2.0-flash`. */
function modelName(model: unknown): unknown {
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

function contentMessage(c: Record<string, unknown>): Message {
  const parts = Array.isArray(c.parts) ? c.parts : [];
  const onlyResponses = parts.length > 0 && parts.every((p) => isObject(p) && isObject(p.functionResponse));
  const role = onlyResponses ? "tool" : c.role === "model" ? "assistant" : typeof c.role === "string" && c.role ? c.role : "user";
  return { role, content: partsText(parts) };
}

/**
 * The call's input: the system instruction, then the contents as plain text. `contents` takes
 * what the SDK takes: a string, a Content, a Part, or a list of them (a list of parts and strings
 * is one user message).
 */
function inputMessages(params: Record<string, unknown>): Message[] {
  const out: Message[] = [];
  const config = isObject(params.config) ? params.config : {};
  const system = config.systemInstruction;
  if (system !== undefined && system !== null) out.push({ role: "system", content: isContent(system) ? partsText((system as { parts?: unknown }).parts ?? []) : partsText(system) });
  const contents = params.contents;
  if (typeof contents === "string") out.push({ role: "user", content: contents });
  else if (Array.isArray(contents)) {
    if (contents.some(isContent)) {
      for (const c of contents) out.push(isContent(c) ? contentMessage(c as Record<string, unknown>) : { role: "user", content: partsText(c) });
    } else if (contents.length > 0) out.push({ role: "user", content: partsText(contents) });
  } else if (isContent(contents)) out.push(contentMessage(contents as Record<string, unknown>));
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
function fromResponses(responses: unknown[]): CallResult {
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

/**
 * Taps the SDK's async generator in place (its own `next` / `return` / `throw`, which `for await`
 * reads through): the chunks fold into the reply; the span ends when the generator is done, or
 * ERRORED when it throws, ends without a finish reason, or is left early by the app.
 */
function tapGenerator(gen: Record<string, unknown>, span: ManualSpan, finish: (r: CallResult) => void): void {
  const chunks: unknown[] = [];
  let finished = false;
  const bound: AsyncIterator<unknown> = { next: (gen.next as Fn).bind(gen) as AsyncIterator<unknown>["next"] };
  if (typeof gen.return === "function") bound.return = (gen.return as Fn).bind(gen) as AsyncIterator<unknown>["return"];
  if (typeof gen.throw === "function") bound.throw = (gen.throw as Fn).bind(gen) as AsyncIterator<unknown>["throw"];
  const tapped = tapIterator(bound, {
    // A chunk with parts carries tokens (a usage-only last chunk does not).
    timing: { span, content: (chunk) => isObject(chunk) && Array.isArray(chunk.candidates) && isObject(chunk.candidates[0]) && isObject(chunk.candidates[0].content) && Array.isArray(chunk.candidates[0].content.parts) && chunk.candidates[0].content.parts.length > 0 },
    fold(chunk) {
      chunks.push(chunk);
      const c = isObject(chunk) && Array.isArray(chunk.candidates) && isObject(chunk.candidates[0]) ? chunk.candidates[0] : undefined;
      if (c?.finishReason) finished = true;
    },
    done() {
      if (finished) finish(fromResponses(chunks));
      else span.fail(incomplete("stream ended without a finish reason (aborted)"));
    },
    failed: (err) => span.fail(err),
    abandoned() {
      if (finished) finish(fromResponses(chunks));
      else span.fail(incomplete("stream closed by the app before its last chunk"));
    },
  });
  define(gen, "next", tapped.next);
  if (tapped.return) define(gen, "return", tapped.return);
  if (tapped.throw) define(gen, "throw", tapped.throw);
}
