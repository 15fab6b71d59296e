import type { Client } from "../client/client.js";
import type { MultiTurnGolden, SingleTurnGolden, ToolCall, Turn } from "../protocol/types.js";

/** A golden an experiment runs its task on: single-turn (`input`) or multi-turn (`scenario`). */
export type ExperimentGolden = SingleTurnGolden | MultiTurnGolden;

/** What a single-turn task may return beside a plain string (the actual output). */
export interface SingleTurnTaskOutput {
  actualOutput: string;
  /** What the app retrieved; else the golden's. */
  retrievalContext?: string[];
  /** The tools the app called; else those of the task's tool spans. */
  toolsCalled?: ToolCall[];
}

/** What a multi-turn task returns: the conversation it had, as turns (or the list itself). */
export interface MultiTurnTaskOutput {
  turns: Turn[];
}

/** What the task returns for a golden of kind `G`. */
export type TaskOutput<G extends ExperimentGolden> = G extends MultiTurnGolden ? MultiTurnTaskOutput | Turn[] : string | SingleTurnTaskOutput;

/** What a task gets beside its golden. */
export interface TaskContext {
  /** The golden's position in the list. */
  index: number;
  /** Aborted when the experiment's `signal` is: stop early, the result is not sent. */
  signal: AbortSignal;
}

/** The app under test: one call per golden, observed as its own trace. */
export type ExperimentTask<G extends ExperimentGolden> = (golden: G, context: TaskContext) => TaskOutput<G> | Promise<TaskOutput<G>>;

/** A dataset to pull: its alias, or the alias and a dotted numeric version. */
export type DatasetRef = string | { alias: string; version?: string };

/** Where progress and the summary table go: a stream such as `process.stderr`. */
export interface ExperimentOutput {
  write(text: string): unknown;
  /** A bar redrawn in place when true; a line every few percent otherwise. */
  isTTY?: boolean;
}

interface ExperimentCommon<G extends ExperimentGolden> {
  /** Name of the run (the test run's `identifier`, the traces' metadata). @default "experiment" */
  identifier?: string;
  /** The app under test, called once per golden. */
  task: ExperimentTask<G>;
  /** Name of the metric collection that judges the run; of the goldens' kind. */
  metricCollection: string;
  /** Free-form key-value pairs tied to the run (model, prompt version ...). */
  hyperparameters?: Record<string, string | number | boolean | null>;
  /** Tasks running at once. @default 5 */
  concurrency?: number;
  /** Stops starting tasks; what finished is sent. */
  signal?: AbortSignal;
  /** The client that pulls the dataset and posts the run. @default new Client() (configure() and the environment) */
  client?: Client;
  /** Test cases per `POST /v1/evaluate` (each request is a test run of its own). @default 500 */
  chunkSize?: number;
  /** Progress and the summary table; `null` for none. @default process.stderr */
  output?: ExperimentOutput | null;
}

/** Options of {@link runExperiment}: goldens given, or a dataset to pull. */
export type ExperimentOptions<G extends ExperimentGolden = ExperimentGolden> = ExperimentCommon<G> &
  ({ goldens: G[]; dataset?: never } | { dataset: DatasetRef; goldens?: never });

/** What became of one golden. */
export interface ExperimentCaseResult<G extends ExperimentGolden = ExperimentGolden> {
  golden: G;
  /** The actual output (single-turn), or the last assistant turn (multi-turn); undefined when the task failed. */
  actualOutput: string | undefined;
  /** The uuid of the trace the task ran in (undefined when tracing is off). */
  traceUuid: string | undefined;
  /** Why the case failed: the task threw, returned something unusable, or was aborted. */
  error?: string;
  /** True when the case was aborted before it finished (not sent). */
  aborted?: boolean;
}

/** Pass counts of one metric (or of the tasks themselves). */
export interface PassCounts {
  passed: number;
  failed: number;
  /** Cases without a verdict: the service did not judge them (the emulator without a judge: NOT_JUDGED). */
  notJudged: number;
  /** passed / (passed + failed); null when nothing was judged. Failed tasks count as failed for every metric. */
  passRate: number | null;
}

/** The outcome of a run, in numbers. */
export interface ExperimentSummary {
  identifier: string;
  metricCollection: string;
  /** Goldens in the run. */
  total: number;
  /** Tasks that finished with a usable result, and those that did not (thrown, unusable, aborted). */
  tasks: PassCounts & { aborted: number };
  /** Test cases sent to the service. */
  sent: number;
  /** Every test run the cases went to (one per request of `chunkSize`). */
  testRunIds: string[];
  /**
   * Per metric of the collection: `available` when the service answered with results (the
   * emulator does, at `/_dev/test-runs`), else the live platform shows them and counts are of
   * failed tasks only.
   */
  metrics: (PassCounts & { name: string })[];
  /** Whether metric results could be read back. */
  resultsAvailable: boolean;
  durationMillis: number;
}

/** What {@link runExperiment} returns. */
export interface ExperimentResult<G extends ExperimentGolden = ExperimentGolden> {
  /** The (first) test run's id; undefined when nothing was sent (all failed or aborted). */
  testRunId: string | undefined;
  /** One per golden, in the goldens' order. */
  results: ExperimentCaseResult<G>[];
  summary: ExperimentSummary;
}
