import type { Context } from "@opentelemetry/api";
import type { SpanType } from "../protocol/types.js";
import { type Conversation, contentFromString, type ReadableMessage, readConversation, toolsCalled } from "../semconv/messages.js";
import type { JsonValue } from "../spans/json-value.js";
import { buildTestCase, type LlmTestCaseOption } from "../spans/test-case.js";
import { type ManualSpan, openSpan } from "../tracing/manual-span.js";

/** The parts of an Agents SDK trace this processor reads. */
export interface AgentsTrace {
  traceId: string;
  name: string;
  groupId?: string | null;
}

/** The parts of an Agents SDK span this processor reads. */
export interface AgentsSpan {
  readonly spanId: string;
  readonly traceId: string;
  readonly parentId: string | null;
  readonly spanData: { type: string; [key: string]: unknown };
  readonly error: { message: string; data?: unknown } | null;
}

/** Options of {@link EvaltraceTracingProcessor}. */
export interface EvaltraceTracingProcessorOptions {
  /** Single-turn metric collection that evaluates each generation online. */
  metricCollection?: string;
  /** Builds the online-eval test case of a generation. @default last user message and the reply, when metricCollection is set */
  llmTestCase?: LlmTestCaseOption;
}

type Usage = { input_tokens?: number; output_tokens?: number };

/**
 * Messages of any shape the SDK hands over, made readable: Chat Completions messages
 * (generation spans), Responses items and the SDK's own items (`function_call` with `callId`,
 * `function_call_result` with its output as content parts) of response spans; a string is the
 * user's.
 */
function conversation(items: unknown): Conversation | undefined {
  if (items === undefined || items === null || items === "") return undefined;
  try {
    return readConversation(items as JsonValue);
  } catch {
    // Never in the SDK's way: a value no reader can walk (a throwing getter) is left out.
    return undefined;
  }
}

/** The agent's instructions a Responses request carried (`instructions`: text, or input items) as the system message. */
function instructionsOf(instructions: unknown): ReadableMessage[] {
  if (typeof instructions === "string") return instructions ? [{ role: "system", content: instructions }] : [];
  if (!Array.isArray(instructions)) return [];
  const read = conversation(instructions);
  return read ? [{ role: "system", content: read.messages.map((m) => m.content).join("\n") }] : [];
}

/** A model reply: its text (message texts and tool calls as `name(arguments)` lines) and its tool calls, handoffs' included. */
function reply(read: Conversation | undefined): { text: string; calls: JsonValue | undefined } {
  if (!read) return { text: "", calls: undefined };
  return { text: read.messages.map((m) => m.content).filter((c) => c !== "").join("\n"), calls: toolsCalled(read.toolCalls) };
}

function parseJson(s: unknown): unknown {
  if (typeof s !== "string") return s;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/** A tool's output as the SDK recorded it (a string): an MCP content part (or list of them) as its text, JSON parsed, else the text. */
function toolOutput(output: unknown): unknown {
  if (typeof output !== "string") return output;
  const text = contentFromString(output);
  return text !== output ? text : parseJson(output);
}

/**
 * A tracing processor for the OpenAI Agents SDK: each agent run becomes a trace (agent spans
 * with their tools and handoffs, generations and responses as llm spans, function calls as tool
 * spans, handoffs as base spans), nested as the SDK runs them and under the current `observe()`
 * span.
 *
 * @example
 * import { addTraceProcessor } from "@openai/agents";
 * addTraceProcessor(new EvaltraceTracingProcessor());
 */
export class EvaltraceTracingProcessor {
  private readonly spans = new Map<string, ManualSpan>();
  /** Bookkeeping spans (task, turn) left out: their id -> their parent's id. */
  private readonly transparent = new Map<string, string>();
  /** Spans open now in each trace (ours and the transparent ones), by trace id. */
  private readonly openIn = new Map<string, number>();

  constructor(private readonly options: EvaltraceTracingProcessorOptions = {}) {}

  async onTraceStart(trace: AgentsTrace): Promise<void> {
    const span = openSpan(trace.name || "Agent workflow", "base", {});
    if (!span) return;
    span.setIntegration("OpenAI Agents");
    this.spans.set(trace.traceId, span);
  }

  async onTraceEnd(trace: AgentsTrace): Promise<void> {
    const span = this.spans.get(trace.traceId);
    this.spans.delete(trace.traceId);
    this.openIn.delete(trace.traceId);
    span?.end();
  }

  private counted(traceId: string, by: number): number {
    const n = (this.openIn.get(traceId) ?? 0) + by;
    if (n <= 0) this.openIn.delete(traceId);
    else this.openIn.set(traceId, n);
    return Math.max(0, n);
  }

  /**
   * A run that throws (a guardrail's tripwire, a model error) never ends its trace: the SDK calls
   * `trace.end()` only when the run returns. When the last open span of a trace ended with an
   * error and nothing new starts in it within a turn of the event loop, its workflow span ends
   * as failed with that error, rather than being force-ended at exit.
   */
  private endAbandonedTrace(traceId: string, error: { message: string }): void {
    setImmediate(() => {
      if ((this.openIn.get(traceId) ?? 0) > 0) return;
      const root = this.spans.get(traceId);
      if (!root) return;
      this.spans.delete(traceId);
      root.fail(new Error(error.message));
    });
  }

  /** The context of the nearest span we opened, skipping the transparent ones. */
  private parentContext(id: string): Context | undefined {
    let key: string | undefined = id;
    for (let hops = 0; key !== undefined && hops < 64; hops++) {
      const opened = this.spans.get(key);
      if (opened) return opened.context;
      key = this.transparent.get(key);
    }
    return undefined;
  }

  async onSpanStart(span: AgentsSpan): Promise<void> {
    const data = span.spanData;
    const parentKey = span.parentId ?? span.traceId;
    this.counted(span.traceId, 1);
    if (data.type === "task" || data.type === "turn") {
      // The SDK's own bookkeeping (a run, one model turn): its children go to the agent above.
      this.transparent.set(span.spanId, parentKey);
      return;
    }
    const parent = this.parentContext(parentKey);
    const [name, type] = this.describe(data);
    const opened = openSpan(name, type, {}, undefined, parent);
    if (!opened) return;
    opened.setIntegration("OpenAI Agents");
    this.spans.set(span.spanId, opened);
  }

  async onSpanEnd(span: AgentsSpan): Promise<void> {
    this.transparent.delete(span.spanId);
    if (this.counted(span.traceId, -1) === 0 && span.error) this.endAbandonedTrace(span.traceId, span.error);
    const opened = this.spans.get(span.spanId);
    if (!opened) return;
    this.spans.delete(span.spanId);
    const data = span.spanData;
    let output: unknown;
    switch (data.type) {
      case "agent":
        opened.set({ availableTools: data.tools ?? [], agentHandoffs: data.handoffs ?? [] });
        break;
      case "generation": {
        const input = conversation(data.input)?.messages ?? [];
        opened.setInput(input);
        // In chat-completions mode the output holds the raw completions, usage included.
        const raw = (Array.isArray(data.output) ? data.output[0] : undefined) as
          | { object?: string; model?: unknown; usage?: { prompt_tokens?: number; completion_tokens?: number }; choices?: { message?: { content?: unknown; tool_calls?: unknown } }[] }
          | undefined;
        const completion = raw?.object === "chat.completion" ? raw : undefined;
        const usage = (data.usage as Usage | undefined) ??
          (completion?.usage ? { input_tokens: completion.usage.prompt_tokens, output_tokens: completion.usage.completion_tokens } : undefined);
        const message = completion?.choices?.[0]?.message;
        const result = reply(completion ? conversation([{ role: "assistant", content: message?.content ?? "", tool_calls: message?.tool_calls ?? [] }]) : conversation(data.output));
        output = result.text;
        this.llmFields(opened, data.model ?? completion?.model, usage, input, result);
        break;
      }
      case "response": {
        const response = (data._response ?? {}) as { model?: unknown; instructions?: unknown; usage?: Usage; output?: unknown[] };
        const input = [...instructionsOf(response.instructions), ...(conversation(data._input)?.messages ?? [])];
        if (input.length) opened.setInput(input);
        const result = reply(conversation(response.output));
        output = result.text;
        this.llmFields(opened, response.model, response.usage, input, result);
        break;
      }
      case "function":
        opened.setInput(parseJson(data.input));
        output = toolOutput(data.output);
        break;
      case "handoff":
        // The target is known only once the handoff happened.
        opened.rename(`handoff → ${String(data.to_agent ?? "?")}`);
        output = { from: data.from_agent, to: data.to_agent };
        break;
      default:
        output = data.data ?? undefined;
    }
    if (span.error) opened.fail(new Error(span.error.message));
    else opened.end(output);
  }

  private describe(data: AgentsSpan["spanData"]): [string, SpanType] {
    switch (data.type) {
      case "agent":
        return [String(data.name ?? "agent"), "agent"];
      case "generation":
      case "response":
        return [data.type === "generation" ? "generation" : "response", "llm"];
      case "function":
        return [String(data.name ?? "function"), "tool"];
      case "handoff":
        return [`handoff → ${String(data.to_agent ?? "?")}`, "base"];
      default:
        return [String(data.name ?? data.type), "base"];
    }
  }

  private llmFields(span: ManualSpan, model: unknown, usage: Usage | undefined, input: ReadableMessage[], result: { text: string; calls: JsonValue | undefined }): void {
    const fields: Record<string, unknown> = { model, provider: "openai", inputTokenCount: usage?.input_tokens, outputTokenCount: usage?.output_tokens };
    if (result.calls) fields.toolsCalled = result.calls;
    if (this.options.metricCollection) fields.metricCollection = this.options.metricCollection;
    const testCase = buildTestCase(this.options.llmTestCase, this.options.metricCollection, input, result.text);
    if (testCase) fields.llmTestCase = testCase;
    span.set(fields);
  }

  async shutdown(): Promise<void> {
    for (const span of this.spans.values()) span.end();
    this.spans.clear();
    this.transparent.clear();
    this.openIn.clear();
  }

  async forceFlush(): Promise<void> {}
}
