export type { ApiKeysApi } from "./client/api-keys.js";
export type { ClientOptions } from "./client/client.js";
export { Client } from "./client/client.js";
export type { DatasetsApi } from "./client/datasets.js";
export type { EvaluateApi } from "./client/evaluate.js";
export type { MetricCollectionsApi } from "./client/metric-collections.js";
export type { MetricsApi } from "./client/metrics.js";
export type { PromptsApi } from "./client/prompts.js";
export { EvaltraceError, ServiceError, ValidationError } from "./client/errors.js";
export type { PromptPullOptions, PromptSelector } from "./client/prompt-pull.js";
export { PromptInterpolationError } from "./prompts/errors.js";
export type { InterpolationType, PromptVariables } from "./prompts/interpolate.js";
export type { MessagesPrompt, Prompt, PromptBase, PulledPromptTool, TextPrompt } from "./prompts/prompt.js";
export type { PromptCacheOptions, PromptCacheStats } from "./prompts/prompt-cache.js";
export type {
  ApiKey,
  ConversationalTestCase,
  DatasetPullOptions,
  DatasetPush,
  DatasetPushOptions,
  DatasetPushResult,
  EvaluateInput,
  EvaluationParam,
  Metric,
  MetricCollection,
  MetricCollectionInput,
  MetricInput,
  MetricSetting,
  MetricSettingInput,
  MetricUpdate,
  ModelProvider,
  ModelSettings,
  MultiTurnGolden,
  OfflineEvaluationInput,
  OutputSchema,
  PromptMessage,
  PromptPush,
  PromptPushResult,
  PromptTool,
  PulledDataset,
  PulledGolden,
  RotateApiKeyInput,
  SchemaFieldType,
  SingleTurnGolden,
  SingleTurnTestCase,
  Turn,
  UpdateApiKeyResult,
} from "./protocol/types.js";
export type { Clock, TimerHandle } from "./clock.js";
export { systemClock } from "./clock.js";
export type { BatchOptions, EvaltraceOptions, SpoolOptions } from "./config/options.js";
export { DEFAULT_BASE_URL } from "./config/options.js";
export type { OfflineEvaluationOptions, ThreadEvaluationOptions } from "./evaluate.js";
export { evaluateSpan, evaluateThread, evaluateTrace } from "./evaluate.js";
export type {
  DatasetRef,
  ExperimentCaseResult,
  ExperimentGolden,
  ExperimentOptions,
  ExperimentOutput,
  ExperimentResult,
  ExperimentSummary,
  ExperimentTask,
  GoldenSummary,
  MetricSummary,
  MetricVerdict,
  MultiTurnTaskOutput,
  PassCounts,
  Scorer,
  ScorerInput,
  ScorerResult,
  SingleTurnTaskOutput,
  TaskContext,
  TaskOutput,
  VerdictState,
} from "./experiments/types.js";
export { runExperiment } from "./experiments/entry.js";
export type { EvaltraceSpanProcessorOptions } from "./bridge/span-processor.js";
export { EvaltraceSpanProcessor } from "./bridge/span-processor.js";
export type { EvaluationOutcome, ExporterStats, FlushResult } from "./export/types.js";
export type { SpoolInspection } from "./export/spool/inspect.js";
export type { SpoolModeName } from "./export/spool/spool-mode.js";
export { inspectSpool } from "./export/spool/inspect.js";
export type { EmittedLogRecord } from "./bridge/log-record-processor.js";
export { EvaltraceLogRecordProcessor } from "./bridge/log-record-processor.js";
export type { WaitUntil } from "./lifecycle/delivery.js";
export { deliver, flush, shutdown, stats } from "./lifecycle/delivery.js";
export { TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY } from "./protocol/metadata-keys.js";
export type { Logger, LogLevel } from "./logger.js";
export { consoleLogger } from "./logger.js";
export type { SdkStats } from "./runtime/runtime.js";
export { configure } from "./runtime/configure.js";
export type { AgentSpanFields, CommonSpanFields, LlmSpanFields, ObserveOptions, RetrieverSpanFields, SpanTypeFields, SpanUpdate, TestCaseFields, ToolSpanFields, TraceUpdate } from "./spans/fields.js";
export type { LlmTestCase, SpanType, ToolCall } from "./protocol/types.js";
export type { AnyFunction, ObserveDecorator } from "./tracing/observe.js";
export { observe } from "./tracing/observe.js";
export type { HeaderCarrier } from "./tracing/propagation.js";
export { extractTraceContext, injectTraceHeaders, withRemoteParent } from "./tracing/propagation.js";
export type { SerializeLimits } from "./spans/serialize.js";
export type { JsonValue } from "./spans/json-value.js";
export { currentSpanUuid, currentTraceUuid, updateCurrentSpan, updateCurrentTrace } from "./tracing/update.js";
export type { LlmSpanOptions, RootSpanOptions } from "./spans/fields.js";
export type { SpanHandle, TraceHandle } from "./tracing/handles.js";
export { currentSpan, currentTrace } from "./tracing/handles.js";
export type { PromptLink, PromptRef } from "./spans/fields.js";
export type { TracingDefaults } from "./tracing/scoped-defaults.js";
export { withTracingContext } from "./tracing/scoped-defaults.js";
export type { AgentSpanUpdate, LlmSpanUpdate, RetrieverSpanUpdate, ToolSpanUpdate } from "./tracing/typed-updates.js";
export { updateAgentSpan, updateLlmSpan, updateRetrieverSpan, updateToolSpan } from "./tracing/typed-updates.js";
