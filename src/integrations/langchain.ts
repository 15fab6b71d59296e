import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Context } from "@opentelemetry/api";
import type { SpanType } from "../tracing/fields.js";
import { type ManualSpan, openSpan } from "../tracing/manual-span.js";
import { buildTestCase, type LlmTestCaseOption } from "../tracing/test-case.js";
import { messageText } from "../tracing/message-text.js";

/** Options of {@link EvaltraceCallbackHandler}. */
export interface EvaltraceCallbackHandlerOptions {
  /** Single-turn metric collection that evaluates each LLM call online. */
  metricCollection?: string;
  /** Builds the online-eval test case of an LLM call. @default last user message and the reply, when metricCollection is set */
  llmTestCase?: LlmTestCaseOption;
}

type Serialized = { id?: string[]; name?: string };
type Msg = { content?: unknown; role?: string; type?: string; _getType?: () => string; getType?: () => string };

const roles: Record<string, string> = { human: "user", ai: "assistant", system: "system", tool: "tool", function: "tool", generic: "user" };

function message(m: Msg): { role: string; content: string } {
  const kind = m.getType?.() ?? m._getType?.() ?? m.type ?? m.role ?? "human";
  return { role: roles[kind] ?? kind, content: messageText(m.content) };
}

const nameOf = (s: Serialized | undefined, runName: string | undefined, fallback: string) => runName ?? s?.name ?? s?.id?.at(-1) ?? fallback;

/**
 * A LangChain.js callback handler: chains become base spans (agents agent spans), chat models
 * and LLMs llm spans (model, messages, output, token counts), tools tool spans and retrievers
 * retriever spans, nested as LangChain runs them, and under the current `observe()` span.
 *
 * @example
 * const handler = new EvaltraceCallbackHandler({ metricCollection: "answers" });
 * await chain.invoke({ question }, { callbacks: [handler] });
 */
export class EvaltraceCallbackHandler extends BaseCallbackHandler {
  name = "EvaltraceCallbackHandler";
  private readonly runs = new Map<string, { span: ManualSpan; input?: string }>();

  constructor(private readonly options: EvaltraceCallbackHandlerOptions = {}) {
    super();
  }

  private parent(parentRunId: string | undefined): Context | undefined {
    return parentRunId ? this.runs.get(parentRunId)?.span.context : undefined;
  }

  private open(runId: string, parentRunId: string | undefined, name: string, type: SpanType, fields: Record<string, unknown>, input: unknown, lastUserInput?: string): void {
    const span = openSpan(name, type, fields, input, this.parent(parentRunId));
    if (!span) return;
    span.setIntegration("LangChain");
    this.runs.set(runId, { span, input: lastUserInput });
  }

  private close(runId: string, output: unknown, fields?: Record<string, unknown>): void {
    const run = this.runs.get(runId);
    if (!run) return;
    this.runs.delete(runId);
    if (fields) run.span.set(fields);
    run.span.end(output);
  }

  private failRun(runId: string, err: unknown): void {
    const run = this.runs.get(runId);
    if (!run) return;
    this.runs.delete(runId);
    run.span.fail(err);
  }

  // LangChain calls this with (chain, inputs, runId, parentRunId, tags, metadata, runType, runName).
  override handleChainStart(chain: Serialized, inputs: unknown, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runType?: string, runName?: string): void {
    const name = nameOf(chain, runName, "chain");
    const type: SpanType = runType === "agent" || /agent/i.test(name) ? "agent" : "base";
    this.open(runId, parentRunId, name, type, {}, inputs);
  }

  override handleChainEnd(outputs: unknown, runId: string): void {
    this.close(runId, outputs);
  }

  override handleChainError(err: Error, runId: string): void {
    this.failRun(runId, err);
  }

  override handleChatModelStart(llm: Serialized, messages: Msg[][], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, _tags?: string[], metadata?: Record<string, unknown>, runName?: string): void {
    const input = (messages[0] ?? []).map(message);
    this.openLlm(llm, input, runId, parentRunId, extraParams, metadata, runName);
  }

  override handleLLMStart(llm: Serialized, prompts: string[], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, _tags?: string[], metadata?: Record<string, unknown>, runName?: string): void {
    this.openLlm(llm, prompts.map((p) => ({ role: "user", content: p })), runId, parentRunId, extraParams, metadata, runName);
  }

  private openLlm(llm: Serialized, input: { role: string; content: string }[], runId: string, parentRunId: string | undefined, extraParams: Record<string, unknown> | undefined, metadata: Record<string, unknown> | undefined, runName: string | undefined): void {
    const params = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
    const model = metadata?.ls_model_name ?? params.model ?? params.model_name;
    const fields: Record<string, unknown> = { model, provider: metadata?.ls_provider };
    if (this.options.metricCollection) fields.metricCollection = this.options.metricCollection;
    const lastUser = [...input].reverse().find((m) => m.role === "user")?.content;
    this.open(runId, parentRunId, nameOf(llm, runName, "llm"), "llm", fields, input, lastUser);
  }

  override handleLLMEnd(output: { generations?: { text?: string; message?: Msg & { usage_metadata?: { input_tokens?: number; output_tokens?: number }; response_metadata?: Record<string, unknown> } }[][]; llmOutput?: Record<string, unknown> }, runId: string): void {
    const run = this.runs.get(runId);
    const gen = output.generations?.[0]?.[0];
    const reply = gen?.text || messageText(gen?.message?.content) || (gen?.message ? JSON.stringify((gen.message as { tool_calls?: unknown }).tool_calls ?? "") : "");
    const usage = gen?.message?.usage_metadata;
    const tokenUsage = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number } | undefined;
    const fields: Record<string, unknown> = {
      inputTokenCount: usage?.input_tokens ?? tokenUsage?.promptTokens,
      outputTokenCount: usage?.output_tokens ?? tokenUsage?.completionTokens,
    };
    const responseModel = gen?.message?.response_metadata?.model_name ?? gen?.message?.response_metadata?.model;
    if (typeof responseModel === "string") fields.model = responseModel;
    const testCase = buildTestCase(this.options.llmTestCase, this.options.metricCollection, [{ role: "user", content: run?.input ?? "" }], reply);
    if (testCase) fields.llmTestCase = testCase;
    this.close(runId, reply, fields);
  }

  override handleLLMError(err: Error, runId: string): void {
    this.failRun(runId, err);
  }

  override handleToolStart(tool: Serialized, input: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string): void {
    let parsed: unknown = input;
    try {
      parsed = JSON.parse(input);
    } catch {
      // a plain string input
    }
    this.open(runId, parentRunId, nameOf(tool, runName, "tool"), "tool", {}, parsed);
  }

  override handleToolEnd(output: unknown, runId: string): void {
    const content = output && typeof output === "object" && "content" in output ? (output as { content: unknown }).content : output;
    this.close(runId, content);
  }

  override handleToolError(err: Error, runId: string): void {
    this.failRun(runId, err);
  }

  override handleRetrieverStart(retriever: Serialized, query: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, name?: string): void {
    this.open(runId, parentRunId, nameOf(retriever, name, "retriever"), "retriever", {}, query);
  }

  override handleRetrieverEnd(documents: { pageContent: string }[], runId: string): void {
    this.close(runId, documents.map((d) => d.pageContent));
  }

  override handleRetrieverError(err: Error, runId: string): void {
    this.failRun(runId, err);
  }
}
