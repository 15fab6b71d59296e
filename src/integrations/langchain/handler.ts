import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Context } from "@opentelemetry/api";
import type { SpanType, ToolCall } from "../../protocol/types.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { buildTestCase, type LlmTestCaseOption } from "../../spans/test-case.js";
import { field, type ReadableMessage, textOf, toolCallsOf } from "./messages.js";
import { agentRules, type ChainFacts, controlFlowErrors, isGraph, offeredTools, plumbingRules } from "./runs.js";
import { readDocuments, readValue } from "./values.js";
import { callLine, quietly, toolCall } from "../kit/model-call.js";
import { defaultEmbedder } from "../../util/default-embedder.js";
import { takeRetrieverEmbedder } from "./embeddings.js";

/** Options of {@link EvaltraceCallbackHandler}. */
export interface EvaltraceCallbackHandlerOptions {
  /** Single-turn metric collection that evaluates each LLM call online. */
  metricCollection?: string;
  /** Builds the online-eval test case of an LLM call. @default last user message and the reply, when metricCollection is set */
  llmTestCase?: LlmTestCaseOption;
  /**
   * Records the nodes of LangGraph graphs as base spans too. By default a graph is one agent
   * span with its model, tool and retriever calls (and subgraphs) under it. @default false
   */
  graphNodes?: boolean;
}

type Serialized = { id?: unknown; name?: unknown; kwargs?: unknown };

/** What the handler keeps of a run it has seen start, recorded or not. */
interface Run {
  parentRunId?: string;
  /** Undefined for a run that is not recorded (graph plumbing): its children go to its parent. */
  span?: ManualSpan;
  type?: SpanType;
  insideGraph: boolean;
  /** llm runs: the input messages (for the test case). */
  input?: ReadableMessage[];
  /** Texts of the documents retrieved so far inside this run. */
  retrieved?: string[];
  /** agent runs: the tools offered to its models or called inside it. */
  tools?: Set<string>;
  /** retriever runs: the embedder named by the run's metadata. */
  embedder?: string;
}

/** Runs open at once beyond which new ones are not recorded (a run LangChain never ends stays). */
const MAX_OPEN_RUNS = 10_000;
/** Documents' texts kept per run for the `retrievalContext` of the llm calls that follow. */
const MAX_RETRIEVED = 200;
/** Ancestors walked at most (LangChain nests runs a few dozen deep at worst). */
const MAX_HOPS = 200;

const text = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

function nameOf(s: Serialized | undefined, runName: string | undefined, fallback: string): string {
  const path = classPath(s);
  return text(runName) ?? text(s && field(s, "name")) ?? path.at(-1) ?? fallback;
}

function classPath(s: Serialized | undefined): string[] {
  const id = s && typeof s === "object" ? field(s, "id") : undefined;
  return Array.isArray(id) ? id.filter((x): x is string => typeof x === "string") : [];
}

/**
 * A LangChain.js / LangGraph.js callback handler. Chains become base spans, LangGraph graphs
 * (`createReactAgent`, a compiled `StateGraph`) agent spans with their `availableTools`, chat
 * models and LLMs llm spans (model, messages with their tool calls, reply, token counts,
 * `toolsCalled`, and the `retrievalContext` of the documents retrieved before them in the same
 * run), tools tool spans and retrievers retriever spans (documents as output and
 * `retrievalContext`), nested as LangChain runs them and under the current `observe()` span.
 * Every value is read into plain JSON: messages as `{role, content, tool_calls?}`, documents as
 * `{pageContent, metadata}`, never LangChain's `{"lc":1,...}` serialization. Never throws into
 * LangChain. See {@link instrumentLangChain} to install it for every run of the process.
 *
 * @example
 * const handler = new EvaltraceCallbackHandler({ metricCollection: "answers" });
 * await chain.invoke({ question }, { callbacks: [handler] });
 */
export class EvaltraceCallbackHandler extends BaseCallbackHandler {
  /** LangChain adds one handler per name: the global one stays out of runs given this one. */
  name = "EvaltraceCallbackHandler";
  private readonly runs = new Map<string, Run>();
  private dropped = 0;

  constructor(private readonly options: EvaltraceCallbackHandlerOptions = {}) {
    super();
    // The handler's work is synchronous and cheap: awaited, every span has ended when the
    // run's promise settles, instead of in LangChain's background queue.
    this.awaitHandlers = true;
  }

  /** Runs not recorded because {@link MAX_OPEN_RUNS} runs were open already. */
  get droppedRuns(): number {
    return this.dropped;
  }

  /** The run and its ancestors, nearest first. */
  private *lineage(runId: string | undefined): Generator<Run> {
    for (let hops = 0; runId && hops < MAX_HOPS; hops++) {
      const run = this.runs.get(runId);
      if (!run) return;
      yield run;
      runId = run.parentRunId;
    }
  }

  private nearest(runId: string | undefined, test: (run: Run) => boolean): Run | undefined {
    for (const run of this.lineage(runId)) if (test(run)) return run;
    return undefined;
  }

  private parentContext(parentRunId: string | undefined): Context | undefined {
    return this.nearest(parentRunId, (r) => r.span !== undefined)?.span?.context;
  }

  private track(runId: string, run: Run): boolean {
    if (this.runs.size >= MAX_OPEN_RUNS) {
      this.dropped++;
      return false;
    }
    this.runs.set(runId, run);
    return true;
  }

  private open(runId: string, parentRunId: string | undefined, name: string, type: SpanType, fields: Record<string, unknown>, input: unknown, extra: Partial<Run> = {}): Run | undefined {
    const run: Run = { parentRunId, insideGraph: false, ...extra, type };
    if (!this.track(runId, run)) return undefined;
    run.span = openSpan(name, type, fields, input, this.parentContext(parentRunId));
    run.span?.setIntegration("LangChain");
    return run;
  }

  private take(runId: string): Run | undefined {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    return run;
  }

  private close(runId: string, output: () => unknown, fields?: (run: Run) => Record<string, unknown>): void {
    const run = this.take(runId);
    if (!run?.span) return;
    if (fields) run.span.set(fields(run));
    run.span.end(output());
  }

  private failRun(runId: string, err: unknown): void {
    const run = this.take(runId);
    const name = err !== null && typeof err === "object" ? field(err, "name") : undefined;
    if (typeof name === "string" && controlFlowErrors.has(name)) run?.span?.end({ [name]: readValue(field(err as object, "interrupts") ?? field(err as object, "message")) });
    else run?.span?.fail(err);
  }

  /** Adds tool names to the nearest agent span around a run. */
  private offerTools(parentRunId: string | undefined, names: readonly string[]): void {
    if (names.length === 0) return;
    const agent = this.nearest(parentRunId, (r) => r.type === "agent" && r.span !== undefined);
    if (!agent) return;
    agent.tools ??= new Set();
    for (const name of names) if (agent.tools.size < 200) agent.tools.add(name);
  }

  // LangChain calls this with (chain, inputs, runId, parentRunId, tags, metadata, runType, runName).
  override handleChainStart(chain: Serialized, inputs: unknown, runId: string, parentRunId?: string, tags?: string[], metadata?: Record<string, unknown>, runType?: string, runName?: string): void {
    quietly(() => {
      const parent = parentRunId ? this.runs.get(parentRunId) : undefined;
      const facts: ChainFacts = {
        name: nameOf(chain, runName, "chain"),
        classPath: classPath(chain),
        tags: Array.isArray(tags) ? tags : [],
        metadata: metadata && typeof metadata === "object" ? metadata : {},
        runType,
        insideGraph: parent?.insideGraph ?? false,
        keepNodes: this.options.graphNodes === true,
      };
      const inside = facts.insideGraph || isGraph(facts);
      if (plumbingRules.some((rule) => rule.test(facts))) {
        this.track(runId, { parentRunId, insideGraph: inside });
        return;
      }
      const type: SpanType = agentRules.some((rule) => rule.test(facts)) ? "agent" : "base";
      this.open(runId, parentRunId, facts.name, type, {}, readValue(inputs), { insideGraph: inside });
    });
  }

  override handleChainEnd(outputs: unknown, runId: string): void {
    quietly(() =>
      this.close(
        runId,
        () => readValue(outputs),
        (run) => (run.type === "agent" ? { availableTools: [...(run.tools ?? [])] } : {}),
      ),
    );
  }

  override handleChainError(err: Error, runId: string): void {
    quietly(() => this.failRun(runId, err));
  }

  override handleChatModelStart(llm: Serialized, messages: unknown[][], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, _tags?: string[], metadata?: Record<string, unknown>, runName?: string): void {
    quietly(() => {
      const list = Array.isArray(messages?.[0]) ? messages[0] : [];
      const input = list.map((m) => readValue(m)).filter((m): m is ReadableMessage => m !== null && typeof m === "object" && typeof (m as ReadableMessage).role === "string");
      this.openLlm(llm, input, runId, parentRunId, extraParams, metadata, runName);
    });
  }

  override handleLLMStart(llm: Serialized, prompts: string[], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, _tags?: string[], metadata?: Record<string, unknown>, runName?: string): void {
    quietly(() => {
      const input = (Array.isArray(prompts) ? prompts : []).map((p) => ({ role: "user", content: textOf(p) }));
      this.openLlm(llm, input, runId, parentRunId, extraParams, metadata, runName);
    });
  }

  private openLlm(llm: Serialized, input: ReadableMessage[], runId: string, parentRunId: string | undefined, extraParams: Record<string, unknown> | undefined, metadata: Record<string, unknown> | undefined, runName: string | undefined): void {
    const params = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
    const fields: Record<string, unknown> = { model: metadata?.ls_model_name ?? params.model ?? params.model_name, provider: metadata?.ls_provider };
    if (this.options.metricCollection) fields.metricCollection = this.options.metricCollection;
    const retrieved = this.nearest(parentRunId, (r) => (r.retrieved?.length ?? 0) > 0)?.retrieved;
    if (retrieved) fields.retrievalContext = [...retrieved];
    quietly(() => this.offerTools(parentRunId, offeredTools(extraParams)));
    const parent = parentRunId ? this.runs.get(parentRunId) : undefined;
    this.open(runId, parentRunId, nameOf(llm, runName, "llm"), "llm", fields, input, { input, insideGraph: parent?.insideGraph ?? false });
  }

  override handleLLMEnd(output: { generations?: unknown[][]; llmOutput?: Record<string, unknown> }, runId: string): void {
    quietly(() => {
      const run = this.runs.get(runId);
      if (!run?.span) return void this.take(runId);
      const gen = output?.generations?.[0]?.[0] as { text?: unknown; message?: object } | undefined;
      const message = gen?.message && typeof gen.message === "object" ? gen.message : undefined;
      const calls = message ? toolCallsOf(message) : [];
      const toolsCalled: ToolCall[] = calls.map((c) => toolCall(c.name, c.args));
      const body = text(gen?.text) ?? (message ? textOf(field(message, "content")) : "");
      const reply = [body, ...calls.map((c) => callLine(c.name, c.args))].filter(Boolean).join("\n");
      const usage = message ? (field(message, "usage_metadata") as { input_tokens?: unknown; output_tokens?: unknown } | undefined) : undefined;
      const tokenUsage = output?.llmOutput?.tokenUsage as { promptTokens?: unknown; completionTokens?: unknown } | undefined;
      const fields: Record<string, unknown> = {
        inputTokenCount: usage?.input_tokens ?? tokenUsage?.promptTokens,
        outputTokenCount: usage?.output_tokens ?? tokenUsage?.completionTokens,
      };
      const meta = message ? (field(message, "response_metadata") as Record<string, unknown> | undefined) : undefined;
      const responseModel = meta?.model_name ?? meta?.model;
      if (typeof responseModel === "string" && responseModel) fields.model = responseModel;
      if (toolsCalled.length > 0) fields.toolsCalled = toolsCalled;
      const testCase = buildTestCase(this.options.llmTestCase, this.options.metricCollection, run.input ?? [], reply);
      if (testCase) {
        const retrieved = this.nearest(run.parentRunId, (r) => (r.retrieved?.length ?? 0) > 0)?.retrieved;
        fields.llmTestCase = { ...(retrieved ? { retrievalContext: [...retrieved] } : {}), ...(toolsCalled.length > 0 ? { toolsCalled } : {}), ...testCase };
      }
      this.close(runId, () => reply, () => fields);
    });
  }

  override handleLLMError(err: Error, runId: string): void {
    quietly(() => this.failRun(runId, err));
  }

  override handleToolStart(tool: Serialized, input: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string): void {
    quietly(() => {
      let parsed: unknown = input;
      try {
        parsed = typeof input === "string" ? JSON.parse(input) : readValue(input);
      } catch {
        // a plain string input
      }
      const name = nameOf(tool, runName, "tool");
      const kwargs = tool && typeof tool === "object" ? field(tool, "kwargs") : undefined;
      const description = kwargs && typeof kwargs === "object" ? text(field(kwargs, "description")) : undefined;
      const parent = parentRunId ? this.runs.get(parentRunId) : undefined;
      this.offerTools(parentRunId, [name]);
      this.open(runId, parentRunId, name, "tool", description ? { description } : {}, parsed, { insideGraph: parent?.insideGraph ?? false });
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    quietly(() =>
      this.close(runId, () => {
        // A ToolMessage (LangGraph's ToolNode, tools called with a tool call): its content.
        const read = readValue(output);
        return read !== null && typeof read === "object" && "tool_call_id" in read ? (read as ReadableMessage).content : read;
      }),
    );
  }

  override handleToolError(err: Error, runId: string): void {
    quietly(() => this.failRun(runId, err));
  }

  override handleRetrieverStart(retriever: Serialized, query: string, runId: string, parentRunId?: string, _tags?: string[], metadata?: Record<string, unknown>, name?: string): void {
    quietly(() => {
      const fields: Record<string, unknown> = {};
      const embedder = metadata?.ls_embedding_provider;
      if (typeof embedder === "string" && embedder) fields.embedder = embedder;
      const parent = parentRunId ? this.runs.get(parentRunId) : undefined;
      this.open(runId, parentRunId, nameOf(retriever, name, "retriever"), "retriever", fields, readValue(query), { insideGraph: parent?.insideGraph ?? false, ...(fields.embedder ? { embedder: fields.embedder as string } : {}) });
    });
  }

  override handleRetrieverEnd(documents: unknown[], runId: string): void {
    quietly(() => {
      const docs = readDocuments(documents);
      const texts = docs.map((d) => d.pageContent);
      const run = this.runs.get(runId);
      // The documents feed the llm calls that follow in every run around this one.
      for (const ancestor of this.lineage(run?.parentRunId)) {
        ancestor.retrieved ??= [];
        for (const t of texts) if (ancestor.retrieved.length < MAX_RETRIEVED) ancestor.retrieved.push(t);
      }
      this.close(
        runId,
        () => docs,
        (r) => ({ embedder: embedderOf(r, runId), ...(texts.length > 0 ? { retrievalContext: texts } : {}) }),
      );
    });
  }

  override handleRetrieverError(err: Error, runId: string): void {
    quietly(() => {
      const run = this.runs.get(runId);
      if (run?.span) run.span.set({ embedder: embedderOf(run, runId) });
      this.failRun(runId, err);
    });
  }
}

/**
 * A retriever span's embedder: the run's metadata's, else the model of the vector store's
 * embeddings (`VectorStoreRetriever.vectorStore.embeddings`, noted as the retriever ran under
 * `instrument()` or zero-code), else the default embedder, silently (counted in `stats()`).
 */
function embedderOf(run: Run, runId: string): string {
  const noted = takeRetrieverEmbedder(runId);
  return run.embedder ?? noted ?? defaultEmbedder();
}
