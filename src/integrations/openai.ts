import { context } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../tracing/manual-span.js";
import { buildTestCase, type LlmTestCaseOption } from "../tracing/test-case.js";
import { messageText } from "../tracing/message-text.js";

/** Options of {@link wrapOpenAI}. */
export interface WrapOpenAIOptions {
  /** Span name. @default "openai.chat.completions" or "openai.responses" */
  name?: string;
  /** Single-turn metric collection that evaluates each call online. */
  metricCollection?: string;
  /**
   * The test case of the online evaluation. `true` (the default when `metricCollection` is set)
   * uses the last user message as `input` and the reply as `actualOutput`; a function builds it.
   */
  llmTestCase?: LlmTestCaseOption;
}

type Message = { role: string; content: string };
type Usage = { prompt_tokens?: number; completion_tokens?: number; input_tokens?: number; output_tokens?: number };

/**
 * Instruments an OpenAI client: every `chat.completions.create` and `responses.create` becomes
 * an llm span (model, messages, output, token counts), streaming included: the span ends when
 * the stream has been consumed, with the assembled output and usage. Errors are recorded and
 * rethrown unchanged. The client is otherwise untouched; its promises keep their extra methods.
 *
 * @example
 * import OpenAI from "openai";
 * import { wrapOpenAI } from "evaltrace/openai";
 * const openai = wrapOpenAI(new OpenAI(), { metricCollection: "answers" });
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "chat" && value && typeof value === "object") {
        return new Proxy(value, {
          get(chat, p, r) {
            const v = Reflect.get(chat, p, r);
            return p === "completions" && v && typeof v === "object" ? wrapCreate(v, "chat", options) : v;
          },
        });
      }
      if (prop === "responses" && value && typeof value === "object") return wrapCreate(value, "responses", options);
      return value;
    },
  });
}

function wrapCreate<T extends object>(resource: T, api: "chat" | "responses", options: WrapOpenAIOptions): T {
  return new Proxy(resource, {
    get(target, prop, receiver) {
      const original = Reflect.get(target, prop, receiver);
      if (prop !== "create" || typeof original !== "function") return original;
      return function create(this: unknown, params: Record<string, unknown>, ...rest: unknown[]) {
        const input = api === "chat" ? chatInput(params) : responsesInput(params);
        const span = openSpan(options.name ?? (api === "chat" ? "openai.chat.completions" : "openai.responses"), "llm", { model: params?.model, provider: "openai" }, input);
        if (!span) return (original as (...a: unknown[]) => unknown).apply(target, [params, ...rest]);
        span.setIntegration("OpenAI");
        if (options.metricCollection) span.set({ metricCollection: options.metricCollection });
        let result: unknown;
        try {
          result = context.with(span.context, () => (original as (...a: unknown[]) => unknown).apply(target, [params, ...rest]));
        } catch (err) {
          span.fail(err);
          throw err;
        }
        const finish = (output: string, model: unknown, usage: Usage | undefined) => finishSpan(span, options, input, output, model, usage);
        // Observe on the side and hand back the SDK's own promise, so `.withResponse()` and
        // friends keep working.
        void Promise.resolve(result).then(
          (value) => {
            if (params?.stream === true && isAsyncIterable(value)) tapStream(value, api, span, finish);
            else if (api === "chat") finishChat(value, finish);
            else finishResponse(value, finish);
          },
          (err: unknown) => span.fail(err),
        );
        return result;
      };
    },
  });
}

function chatInput(params: Record<string, unknown>): Message[] {
  const messages = Array.isArray(params?.messages) ? (params.messages as { role?: unknown; content?: unknown }[]) : [];
  return messages.map((m) => ({ role: String(m.role ?? "user"), content: messageText(m.content) }));
}

function responsesInput(params: Record<string, unknown>): Message[] {
  const out: Message[] = [];
  if (typeof params?.instructions === "string") out.push({ role: "system", content: params.instructions });
  const input = params?.input;
  if (typeof input === "string") out.push({ role: "user", content: input });
  else if (Array.isArray(input)) {
    for (const item of input as { role?: unknown; content?: unknown }[]) out.push({ role: String(item.role ?? "user"), content: messageText(item.content) });
  }
  return out;
}

function finishSpan(span: ManualSpan, options: WrapOpenAIOptions, input: Message[], output: string, model: unknown, usage: Usage | undefined): void {
  const fields: Record<string, unknown> = {};
  if (typeof model === "string") fields.model = model;
  const inTokens = usage?.prompt_tokens ?? usage?.input_tokens;
  const outTokens = usage?.completion_tokens ?? usage?.output_tokens;
  if (inTokens !== undefined) fields.inputTokenCount = inTokens;
  if (outTokens !== undefined) fields.outputTokenCount = outTokens;
  const testCase = buildTestCase(options.llmTestCase, options.metricCollection, input, output);
  if (testCase) fields.llmTestCase = testCase;
  span.set(fields);
  span.end(output);
}

function finishChat(value: unknown, finish: (output: string, model: unknown, usage: Usage | undefined) => void): void {
  const r = value as { model?: unknown; usage?: Usage; choices?: { message?: { content?: unknown; tool_calls?: unknown } }[] };
  const message = r?.choices?.[0]?.message;
  const output = message?.content ? messageText(message.content) : message?.tool_calls ? JSON.stringify(message.tool_calls) : "";
  finish(output, r?.model, r?.usage);
}

function finishResponse(value: unknown, finish: (output: string, model: unknown, usage: Usage | undefined) => void): void {
  const r = value as { model?: unknown; usage?: Usage; output_text?: unknown; output?: { content?: { text?: unknown }[] }[] };
  const output =
    typeof r?.output_text === "string" ? r.output_text : (r?.output ?? []).flatMap((o) => o.content ?? []).map((c) => (typeof c.text === "string" ? c.text : "")).join("");
  finish(output, r?.model, r?.usage);
}

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return v !== null && typeof v === "object" && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}

/**
 * Taps the SDK's stream in place: every chunk the app reads is also folded into the span's
 * output, and the span ends when the stream ends (or fails, or is abandoned with `return`).
 */
function tapStream(stream: AsyncIterable<unknown>, api: "chat" | "responses", span: ManualSpan, finish: (output: string, model: unknown, usage: Usage | undefined) => void): void {
  const iterate = stream[Symbol.asyncIterator].bind(stream);
  let output = "";
  let model: unknown;
  let usage: Usage | undefined;
  const toolCalls: { name?: string; arguments: string }[] = [];
  const fold = (chunk: unknown) => {
    if (api === "chat") {
      const c = chunk as { model?: unknown; usage?: Usage; choices?: { delta?: { content?: unknown; tool_calls?: { index: number; function?: { name?: string; arguments?: string } }[] } }[] };
      model ??= c.model;
      if (c.usage) usage = c.usage;
      const delta = c.choices?.[0]?.delta;
      if (typeof delta?.content === "string") output += delta.content;
      for (const tc of delta?.tool_calls ?? []) {
        const slot = (toolCalls[tc.index] ??= { arguments: "" });
        if (tc.function?.name) slot.name = tc.function.name;
        if (tc.function?.arguments) slot.arguments += tc.function.arguments;
      }
    } else {
      const e = chunk as { type?: string; delta?: unknown; response?: { model?: unknown; usage?: Usage } };
      if (e.type === "response.output_text.delta" && typeof e.delta === "string") output += e.delta;
      if (e.response?.model) model = e.response.model;
      if (e.response?.usage) usage = e.response.usage;
    }
  };
  const done = () => finish(output || (toolCalls.length ? JSON.stringify(toolCalls) : ""), model, usage);
  Object.defineProperty(stream, Symbol.asyncIterator, {
    configurable: true,
    value() {
      const it = iterate();
      return {
        async next(...args: []) {
          try {
            const step = await it.next(...args);
            if (step.done) done();
            else fold(step.value);
            return step;
          } catch (err) {
            span.fail(err);
            throw err;
          }
        },
        async return(value?: unknown) {
          done();
          return it.return ? it.return(value) : { done: true as const, value };
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
    },
  });
}
