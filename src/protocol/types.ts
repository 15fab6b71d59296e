/** The five span types of the service; each goes into its own list on the wire. */
export type SpanType = "base" | "llm" | "retriever" | "agent" | "tool";

/** A tool call, as test cases and goldens carry it. */
export interface ToolCall {
  name: string;
  /** @default "FUNCTION" */
  type?: "FUNCTION" | "MCP";
  description?: string;
  inputParameters?: Record<string, unknown>;
  output?: unknown;
  reasoning?: string;
}

/** The test case an online evaluation judges (spec 2.5); separate from the span's own input/output. */
export interface LlmTestCase {
  input: string;
  actualOutput: string;
  expectedOutput?: string;
  context?: string[];
  retrievalContext?: string[];
  toolsCalled?: ToolCall[];
  expectedTools?: ToolCall[];
}

/** Test-case fields a single-turn metric may read. */
export type EvaluationParam = "input" | "actualOutput" | "expectedOutput" | "context" | "retrievalContext" | "toolsCalled" | "expectedTools";

type Judgement = { criteria: string; evaluationSteps?: string[] } | { criteria?: string; evaluationSteps: string[] };

/**
 * A custom metric to create (spec 2.2, 4.3): `criteria` and/or `evaluationSteps`; single-turn
 * metrics name the test-case fields they read, multi-turn metrics take none.
 */
export type MetricInput = { name: string } & Judgement &
  ({ multiTurn: false; evaluationParams: [EvaluationParam, ...EvaluationParam[]] } | { multiTurn: true; evaluationParams?: never });

/** Fields of a metric to change; its kind (`multiTurn`) cannot change. */
export interface MetricUpdate {
  name?: string;
  criteria?: string;
  evaluationSteps?: string[];
  evaluationParams?: [EvaluationParam, ...EvaluationParam[]];
}

/** A metric as listed, default metrics included. */
export interface Metric {
  id: string;
  name: string;
  multiTurn: boolean;
  criteria?: string;
  evaluationSteps?: unknown[];
  evaluationParams?: EvaluationParam[];
}

/** A metric in a collection, as sent. Defaults: threshold 0.5, activated true, includeReason true, strictMode false. */
export interface MetricSettingInput {
  metric: { name: string };
  /** 0..1 */
  threshold?: number;
  activated?: boolean;
  includeReason?: boolean;
  strictMode?: boolean;
}

/** A metric in a collection, as listed. */
export type MetricSetting = Required<MetricSettingInput>;

/** A metric collection to create (spec 2.3, 4.4). */
export interface MetricCollectionInput {
  name: string;
  /** Multi-turn collections evaluate threads and conversations; single-turn ones traces, spans and test cases. */
  multiTurn: boolean;
  metricSettings?: MetricSettingInput[];
}

/** A metric collection as listed. */
export interface MetricCollection {
  id: string;
  name: string;
  multiTurn: boolean;
  metricSettings: MetricSetting[];
}

/** A single-turn test case (spec 2.4): the online-evaluation test case plus run bookkeeping. */
export interface SingleTurnTestCase extends LlmTestCase {
  name?: string;
  additionalMetadata?: Record<string, unknown>;
  comments?: string;
  tokenCost?: number;
  completionTime?: number;
}

/** A turn of a conversation. */
export interface Turn {
  role: "user" | "assistant";
  content: string;
  userId?: string;
  retrievalContext?: string[] | null;
  toolsCalled?: ToolCall[] | null;
  additionalMetadata?: Record<string, unknown>;
}

/** A conversational (multi-turn) test case. */
export interface ConversationalTestCase {
  turns: [Turn, ...Turn[]];
  scenario?: string;
  expectedOutcome?: string;
  userDescription?: string;
  chatbotRole?: string;
  context?: string[];
  name?: string;
  additionalMetadata?: Record<string, unknown>;
  comments?: string;
}

/** An evaluation run (spec 4.5): one collection over test cases of one kind. */
export interface EvaluateInput {
  /** Name of the collection; its kind must match the test cases'. */
  metricCollection: string;
  testCases: SingleTurnTestCase[] | ConversationalTestCase[];
  /** Free-form key-value pairs tied to the run (model, prompt version, ...). */
  hyperparameters?: Record<string, string | number | boolean | null>;
  /** Name of the run, to sort and filter runs. */
  identifier?: string;
}

/** Options of the direct offline evaluation calls. */
export interface OfflineEvaluationInput {
  metricCollection: string;
  overwriteMetrics?: boolean;
}

/** Vendor name of a model provider: `CUSTOM` or an upper-snake-case vendor name. */
export type ModelProvider = "CUSTOM" | (string & {});

/** Model settings of a prompt (spec 2.6). */
export interface ModelSettings {
  provider?: ModelProvider;
  name?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  topK?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  stopSequence?: string[];
  reasoningEffort?: "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";
  verbosity?: "LOW" | "MEDIUM" | "HIGH";
}

export type SchemaFieldType = "OBJECT" | "ARRAY" | "STRING" | "FLOAT" | "INTEGER" | "BOOLEAN" | "NULL";

/** The structured output of a prompt, used when `outputType` is `SCHEMA`. */
export interface OutputSchema {
  name: string;
  fields: { id?: string; name: string; type: SchemaFieldType; required?: boolean; parentId?: string | null }[];
}

/** A tool a prompt may call. */
export interface PromptTool {
  name: string;
  description?: string | null;
  mode: "ALLOW_ADDITIONAL" | "NO_ADDITIONAL" | "STRICT";
  structuredSchema: {
    name?: string | null;
    fields: { id: string; name?: string | null; description?: string | null; type: SchemaFieldType; required?: boolean; parentId?: string | null }[];
  };
}

/** A message of a messages prompt. */
export interface PromptMessage {
  role: "user" | "assistant" | "system" | "developer";
  content: string;
}

/** A prompt commit to push (spec 4.8): a text prompt or a messages prompt, never both. */
export type PromptPush = {
  alias: string;
  /** @default "FSTRING" */
  interpolationType?: "MUSTACHE" | "MUSTACHE_WITH_SPACE" | "FSTRING" | "DOLLAR_BRACKETS" | "JINJA";
  modelSettings?: ModelSettings;
  tools?: PromptTool[];
  /** Branch that receives the commit; created from `main` when new. @default "main" */
  branch?: string;
} & ({ text: string; messages?: never } | { messages: [PromptMessage, ...PromptMessage[]]; text?: never }) &
  ({ outputType?: "TEXT" | "JSON"; outputSchema?: never } | { outputType: "SCHEMA"; outputSchema: OutputSchema });

/** What a prompt push returns. */
export interface PromptPushResult {
  promptId: string;
  /** Identifies the commit; not a version number. */
  hash: string;
  link: string;
  deprecated: boolean;
}

interface GoldenCommon {
  context?: unknown[] | null;
  additionalMetadata?: Record<string, unknown> | null;
  comments?: string | null;
  sourceFile?: string | null;
  customColumnKeyValues?: Record<string, unknown>;
  imagesMapping?: Record<string, { url: string; local: boolean }>;
  tags?: string[];
}

/** A single-turn golden (spec 2.7). `finalized` is decided per push. */
export interface SingleTurnGolden extends GoldenCommon {
  input: string;
  actualOutput?: string | null;
  expectedOutput?: string | null;
  retrievalContext?: unknown[] | null;
  toolsCalled?: ToolCall[] | null;
  expectedTools?: ToolCall[] | null;
  tokenCost?: number | null;
  inputTokenCount?: number | null;
  outputTokenCount?: number | null;
}

/** A multi-turn golden (spec 2.7). */
export interface MultiTurnGolden extends GoldenCommon {
  scenario: string;
  expectedOutcome?: string | null;
  userDescription?: string | null;
  turns?: { role: "user" | "assistant"; content: string; userId?: string; retrievalContext?: unknown[] | null; toolsCalled?: ToolCall[] | null }[] | null;
}

/** A dataset push (spec 4.9): goldens of one kind. */
export interface DatasetPush {
  alias: string;
  goldens: SingleTurnGolden[] | MultiTurnGolden[];
  /** Applies to every golden of the push. @default true */
  finalized?: boolean;
  /** Dotted numeric dataset version (Team plan); omitted: the latest version, or unversioned. */
  version?: string;
}

/** Options of `datasets.push`. */
export interface DatasetPushOptions {
  /** Goldens per request. @default 500 */
  chunkSize?: number;
  /** Called after each request with how many goldens were pushed so far. */
  onProgress?: (progress: { pushed: number; total: number }) => void;
}

/** What a dataset push returns. */
export interface DatasetPushResult {
  datasetId: string;
  link: string;
  /** Whether the service marks `POST /v2/datasets` as deprecated. */
  deprecated: boolean;
  pushed: number;
  requests: number;
}

/** Options of `datasets.pull`. */
export interface DatasetPullOptions {
  /** Dotted numeric dataset version; omitted: the latest version, or the unversioned goldens when there is none. */
  version?: string;
  /** Only goldens marked finalized (`false`: every golden). @default true */
  finalized?: boolean;
}

/** A golden as pulled: the pushed fields, `finalized`, and whatever else the service keeps (ids, names). */
export type PulledGolden<G> = G & { finalized?: boolean; [field: string]: unknown };

/** A pulled dataset (`GET /v1/datasets/:alias`): its goldens, of one kind. */
export type PulledDataset = {
  alias: string;
  datasetId: string;
  /** The version the goldens come from; null for unversioned goldens. */
  version: string | null;
} & ({ multiTurn: false; goldens: PulledGolden<SingleTurnGolden>[] } | { multiTurn: true; goldens: PulledGolden<MultiTurnGolden>[] });

/** An API key (spec 2.1); secrets masked except in the response that issued them. */
export interface ApiKey {
  id: number;
  name: string | null;
  valid: boolean;
  value: string;
  shadowValue: string | null;
  rotatesAt: string | null;
  expiresAt: string | null;
  created_at: string;
  lastUsed: string | null;
}

/** What a key update returns (`PUT /v2/...`): the key, both secrets masked, and the endpoint's deprecation flag. */
export interface UpdateApiKeyResult extends ApiKey {
  deprecated: boolean;
}

/** Body of a key rotation (spec 4.1). */
export interface RotateApiKeyInput {
  /** Hours the current value keeps working beside the new one; 0 replaces at once. @default 0 */
  gracePeriodInHours?: number;
  /** New expiration in days from now; null removes it; omitted keeps it; required for an expired key. */
  expiresInDays?: number | null;
}
