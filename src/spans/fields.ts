import type { LlmTestCase, PromptPushResult, SpanType, ToolCall } from "../protocol/types.js";

/** Fields of llm spans. */
export interface LlmSpanFields {
  /** The model string; the service computes token cost and usage from it. */
  model?: string;
  provider?: string;
  inputTokenCount?: number;
  outputTokenCount?: number;
  /** USD per input token. */
  costPerInputToken?: number;
  /** USD per output token. */
  costPerOutputToken?: number;
  promptAlias?: string;
  promptVersion?: string;
  promptLabel?: string;
  promptCommitHash?: string;
}

/** Fields of retriever spans. */
export interface RetrieverSpanFields {
  /** The embedding model used for the query. */
  embedder?: string;
  topK?: number;
  chunkSize?: number;
}

/** Fields of agent spans. */
export interface AgentSpanFields {
  availableTools?: string[];
  agentHandoffs?: string[];
}

/** Fields of tool spans. */
export interface ToolSpanFields {
  description?: string;
}

/** The type-specific fields of each span type. */
export interface SpanTypeFields {
  base: Record<never, never>;
  llm: LlmSpanFields;
  retriever: RetrieverSpanFields;
  agent: AgentSpanFields;
  tool: ToolSpanFields;
}

/** Names of the type-specific fields, per type: what `observe` and `updateCurrentSpan` accept. */
export const typeFieldNames: { readonly [K in SpanType]: readonly (keyof SpanTypeFields[K] & string)[] } = {
  base: [],
  llm: [
    "model",
    "provider",
    "inputTokenCount",
    "outputTokenCount",
    "costPerInputToken",
    "costPerOutputToken",
    "promptAlias",
    "promptVersion",
    "promptLabel",
    "promptCommitHash",
  ],
  retriever: ["embedder", "topK", "chunkSize"],
  agent: ["availableTools", "agentHandoffs"],
  tool: ["description"],
};

/** Test-case fields a span or trace may carry beside `llmTestCase`. */
export interface TestCaseFields {
  expectedOutput?: string;
  retrievalContext?: string[];
  context?: string[];
  toolsCalled?: ToolCall[];
  expectedTools?: ToolCall[];
}

/** Names of the test-case fields of {@link TestCaseFields}. */
export const testCaseFieldNames = [
  "expectedOutput",
  "retrievalContext",
  "context",
  "toolsCalled",
  "expectedTools",
] as const satisfies readonly (keyof TestCaseFields)[];

/** Fields every span can be given, at open time or through `updateCurrentSpan`. */
export interface CommonSpanFields extends TestCaseFields {
  /** Span name. @default the wrapped function's name */
  name?: string;
  /** Single-turn metric collection that evaluates this span online (needs `llmTestCase`). */
  metricCollection?: string;
  llmTestCase?: LlmTestCase;
  /** Key-value records; merged into what the span already has. */
  metadata?: Record<string, unknown>;
}

/** Options of `observe()` that act on the trace: they apply when the span is a trace's root. */
export interface RootSpanOptions {
  /**
   * Routes the whole trace (its late updates and offline evaluations too) to another project's
   * API key, for apps that serve several tenants. Applies on a root span only; never logged.
   */
  apiKey?: string;
}

/** Options of llm spans beyond their fields. */
export interface LlmSpanOptions {
  /** The prompt the call used: fills `promptAlias`, `promptVersion`, `promptLabel`, `promptCommitHash`. */
  prompt?: PromptLink;
}

/** Options of `observe()`: the span type and that type's own fields. */
export type ObserveOptions = {
  [K in SpanType]: CommonSpanFields &
    RootSpanOptions &
    SpanTypeFields[K] &
    (K extends "llm" ? LlmSpanOptions : unknown) &
    (K extends "base" ? { type?: "base" } : { type: K });
}[SpanType];

/** What `updateCurrentSpan` sets on the current span. Type fields that do not match the span's type are ignored. */
export interface SpanUpdate
  extends CommonSpanFields,
    LlmSpanFields,
    RetrieverSpanFields,
    AgentSpanFields,
    ToolSpanFields,
    LlmSpanOptions {
  /** Replaces the captured input. */
  input?: unknown;
  /** Replaces the captured output; the function's return value no longer overwrites it. */
  output?: unknown;
}

/** What `updateCurrentTrace` sets on the current trace. */
export interface TraceUpdate extends TestCaseFields {
  name?: string;
  input?: unknown;
  output?: unknown;
  /** Groups traces into one conversation. */
  threadId?: string;
  userId?: string;
  /** Appended to the trace's tags. */
  tags?: string[];
  /** Merged into the trace's metadata. */
  metadata?: Record<string, unknown>;
  environment?: string;
  /** Single-turn metric collection that evaluates the trace online (needs `llmTestCase`). */
  metricCollection?: string;
  llmTestCase?: LlmTestCase;
  /**
   * `true` drops the whole trace: nothing of it is sent, spans that end later included (counted
   * in `stats().tracesDiscarded`). After its POST started, only what is still to come is dropped.
   */
  drop?: boolean;
  /** Routes the trace to another project's API key; only before the trace is sent. Never logged. */
  apiKey?: string;
}

/**
 * A prompt an llm span used: its `alias` and one of `version`, `label` or commit `hash`, or
 * what `client.prompts.push` returned (its `hash`; add the `alias` you pushed to name it).
 */
export interface PromptRef {
  /** The prompt's alias, as pushed. */
  alias?: string;
  /** A version of the prompt (numbers are sent as their text). */
  version?: string | number;
  /** A label pointing at a version (e.g. `production`). */
  label?: string;
  /** The commit hash, as `client.prompts.push` returns it. */
  hash?: string;
}

/** What `prompt` options and updates accept: a {@link PromptRef}, or a push result as it came back. */
export type PromptLink = PromptRef | PromptPushResult | (PromptPushResult & { alias: string });
