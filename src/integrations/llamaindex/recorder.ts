import { context } from "@opentelemetry/api";
import type { LlmTestCaseOption } from "../../spans/test-case.js";
import { buildTestCase } from "../../spans/test-case.js";
import { currentObservedSpan } from "../../tracing/context.js";
import { isReportableCount } from "../../logger.js";
import { activeRuntime } from "../../runtime/configure.js";
import type { SpanType } from "../../protocol/types.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { isObject, quietly, setMetadata } from "../kit/model-call.js";
import { joinCall, watchLlm } from "./llm-calls.js";
import { field, type ReadableMessage, readMessages, readReply, toolCallsOf } from "./messages.js";
import { defaultEmbedder } from "../../util/default-embedder.js";
import { embedderOf, readNodes, retrieverName } from "./nodes.js";
import type { EventCaller, LlamaIndexEvent, LlamaIndexListener } from "./types.js";

/** Options of the spans the integration records. */
export interface LlamaIndexRecordOptions {
  /** Single-turn metric collection that evaluates each LLM call online. */
  metricCollection?: string;
  /** Builds the online-eval test case of an LLM call. @default last user message and the reply, when metricCollection is set */
  llmTestCase?: LlmTestCaseOption;
}

/** An open span and what its end needs. */
interface Open {
  span: ManualSpan;
  input?: ReadableMessage[];
  retrieved?: string[];
}

/** Spans open at once beyond which new ones are not recorded (an event LlamaIndex never ends stays). */
const MAX_OPEN = 10_000;
/** Retrieved texts kept per caller for the `retrievalContext` of the model calls that follow. */
const MAX_RETRIEVED = 200;
/** Callers walked at most from a model call up to the engine that retrieved. */
const MAX_HOPS = 100;

const INTEGRATION = "LlamaIndex";

/** Texts each engine call (LlamaIndex's `EventCaller`) retrieved, shared by the recorders of every `Settings`. */
const retrievedByCaller = new WeakMap<object, string[]>();
/** Texts last retrieved under each of our spans, for model calls whose copy of `@llamaindex/core` is not the retriever's. */
const retrievedBySpan = new WeakMap<object, string[]>();

/** The span current where LlamaIndex dispatched the event (the key of {@link retrievedBySpan}). */
const currentSpan = (): object | undefined => currentObservedSpan(context.active()) as object | undefined;

const className = (v: unknown): string | undefined => {
  const name = field(field(v, "constructor"), "name");
  return typeof name === "string" && name && name !== "Object" ? name : undefined;
};

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/**
 * Turns the events of LlamaIndex's `CallbackManager` into spans: `llm-start`/`llm-end` an llm
 * span (model, messages, reply, tool calls with their ids, token usage as the reply reports it,
 * and the texts retrieved before it in the same engine call as `retrievalContext`),
 * `retrieve-start`/`retrieve-end` a retriever span (query, nodes, embedder), `llm-tool-call`/
 * `llm-tool-result` a tool span. LlamaIndex dispatches its events in a microtask of the caller's
 * async context, so each span's parent is the span current where LlamaIndex was called (an
 * `observe()` span, or the agent span of a workflow agent). Never throws into LlamaIndex.
 */
export class LlamaIndexRecorder {
  /** Options of the spans; a later `instrumentLlamaIndex` call replaces them. */
  options: LlamaIndexRecordOptions;
  private readonly open = new Map<string, Open>();
  private dropped = 0;

  /** The listeners to add to a `CallbackManager`, by event name. */
  readonly listeners: Readonly<Record<string, LlamaIndexListener>>;

  constructor(
    options: LlamaIndexRecordOptions,
    private readonly on: () => boolean,
    /** The `Settings`' embed model (its getter throws when none is set). */
    private readonly settingsEmbedModel: () => unknown = () => undefined,
  ) {
    this.options = options;
    const listen = (step: (detail: Record<string, unknown>, reason: EventCaller | undefined) => void): LlamaIndexListener => {
      return (event: LlamaIndexEvent) => {
        if (!this.on()) return;
        quietly(() => step(isObject(event?.detail) ? event.detail : {}, isObject(event?.reason) ? event.reason : undefined));
      };
    };
    this.listeners = {
      "llm-start": listen((d, r) => this.llmStart(d, r)),
      "llm-end": listen((d) => this.llmEnd(d)),
      "retrieve-start": listen((d, r) => this.retrieveStart(d, r)),
      "retrieve-end": listen((d, r) => this.retrieveEnd(d, r)),
      "llm-tool-call": listen((d) => this.toolCall(d)),
      "llm-tool-result": listen((d) => this.toolResult(d)),
    };
  }

  /** Events not recorded because {@link MAX_OPEN} spans were open already. */
  get droppedEvents(): number {
    return this.dropped;
  }

  private start(key: string, name: string, type: SpanType, fields: Record<string, unknown>, input: unknown): Open | undefined {
    if (this.open.size >= MAX_OPEN) {
      this.dropped++;
      if (isReportableCount(this.dropped)) activeRuntime()?.logger.warn(`LlamaIndex: ${this.dropped} event(s) not recorded: ${MAX_OPEN} spans are open (LlamaIndex never ended them)`);
      return undefined;
    }
    const span = openSpan(name, type, fields, input);
    if (!span) return undefined;
    span.setIntegration(INTEGRATION);
    const open: Open = { span };
    this.open.set(key, open);
    return open;
  }

  private take(key: string): Open | undefined {
    const open = this.open.get(key);
    this.open.delete(key);
    return open;
  }

  /**
   * The texts retrieved in the engine calls around a model call, nearest first. A model call
   * with no caller around it (its LLM dispatches on another copy of `@llamaindex/core` than the
   * engine, as `@llamaindex/openai` 0.4 with llamaindex 0.11) takes the texts last retrieved
   * under the same span instead.
   */
  private retrievedAround(reason: EventCaller | undefined): string[] | undefined {
    let caller: EventCaller | null | undefined = reason;
    for (let hops = 0; caller && hops < MAX_HOPS; hops++) {
      const texts = retrievedByCaller.get(caller);
      if (texts && texts.length > 0) return texts;
      caller = isObject(caller.parent) ? caller.parent : undefined;
    }
    if (reason && isObject(reason.parent)) return undefined;
    const span = currentSpan();
    return span ? retrievedBySpan.get(span) : undefined;
  }

  private llmStart(detail: Record<string, unknown>, reason: EventCaller | undefined): void {
    const id = str(detail.id);
    if (!id) return;
    const llm = reason?.caller;
    const input = readMessages(detail.messages);
    const model = str(field(field(llm, "metadata"), "model")) ?? str(field(llm, "model"));
    const fields: Record<string, unknown> = { model };
    if (this.options.metricCollection) fields.metricCollection = this.options.metricCollection;
    const retrieved = this.retrievedAround(reason);
    if (retrieved) fields.retrievalContext = [...retrieved];
    const open = this.start(id, className(llm) ?? "llm", "llm", fields, input);
    if (!open) return;
    open.input = input;
    open.retrieved = retrieved;
    joinCall(open.span);
    // Later calls of this LLM end as errors when they fail (LlamaIndex has no event for that).
    watchLlm(llm);
  }

  private llmEnd(detail: Record<string, unknown>): void {
    const open = this.take(str(detail.id) ?? "");
    if (!open) return;
    const reply = readReply(detail.response);
    const fields: Record<string, unknown> = { inputTokenCount: reply.inputTokens, outputTokenCount: reply.outputTokens };
    if (reply.model) fields.model = reply.model;
    if (reply.toolsCalled.length > 0) fields.toolsCalled = reply.toolsCalled;
    const testCase = buildTestCase(this.options.llmTestCase, this.options.metricCollection, open.input ?? [], reply.output);
    if (testCase) {
      fields.llmTestCase = { ...(open.retrieved ? { retrievalContext: [...open.retrieved] } : {}), ...(reply.toolsCalled.length > 0 ? { toolsCalled: reply.toolsCalled } : {}), ...testCase };
    }
    open.span.set(fields);
    const ids = reply.calls.map((c) => c.id).filter((id): id is string => id !== undefined);
    if (ids.length > 0) setMetadata(open.span, { toolCallIds: ids });
    open.span.end(reply.output);
  }

  private retrieveStart(detail: Record<string, unknown>, reason: EventCaller | undefined): void {
    const id = str(detail.id);
    if (!id) return;
    const query = field(detail.query, "query") ?? detail.query;
    // The index's embed model where it can be read, else the Settings' one, else the default,
    // silently (counted in stats()).
    const embedder = embedderOf(reason?.caller) ?? this.settingsEmbedder() ?? defaultEmbedder();
    this.start(id, retrieverName(reason?.caller), "retriever", { embedder }, typeof query === "string" ? query : readMessages([{ role: "user", content: query }])[0]?.content);
  }

  /** The model of the Settings' embed model, if one is set and names it. */
  private settingsEmbedder(): string | undefined {
    try {
      const model = field(this.settingsEmbedModel(), "model");
      return typeof model === "string" && model ? model : undefined;
    } catch {
      return undefined;
    }
  }

  private retrieveEnd(detail: Record<string, unknown>, reason: EventCaller | undefined): void {
    const nodes = readNodes(detail.nodes);
    const texts = nodes.map((n) => n.text).filter(Boolean);
    if (reason && texts.length > 0) {
      const kept = retrievedByCaller.get(reason) ?? [];
      for (const t of texts) if (kept.length < MAX_RETRIEVED) kept.push(t);
      retrievedByCaller.set(reason, kept);
    }
    const span = currentSpan();
    if (span && texts.length > 0) retrievedBySpan.set(span, texts.slice(0, MAX_RETRIEVED));
    const open = this.take(str(detail.id) ?? "");
    if (!open) return;
    if (texts.length > 0) open.span.set({ retrievalContext: texts });
    open.span.end(nodes);
  }

  private toolCall(detail: Record<string, unknown>): void {
    const [call] = toolCallsOf(detail.toolCall);
    if (!call) return;
    const open = this.start(`tool:${call.id ?? call.name}`, call.name, "tool", {}, call.input);
    if (open && call.id) setMetadata(open.span, { toolCallId: call.id });
  }

  private toolResult(detail: Record<string, unknown>): void {
    const [call] = toolCallsOf(detail.toolCall);
    if (!call) return;
    const open = this.take(`tool:${call.id ?? call.name}`);
    if (!open) return;
    const result = detail.toolResult;
    const description = str(field(field(field(result, "tool"), "metadata"), "description"));
    if (description) open.span.set({ description });
    const output = field(result, "output");
    if (field(result, "isError") === true) open.span.fail(output instanceof Error ? output : new Error(typeof output === "string" ? output : "tool call failed"));
    else open.span.end(output);
  }
}
