import type { Client } from "../client/client.js";
import type { MultiTurnGolden, SingleTurnGolden, ToolCall, Turn } from "../protocol/types.js";
import type { CapturedTrace } from "../testing/captured.js";

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
  /** Which run of the golden this is, from 0 (see `trials`). */
  trial: number;
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
  /** The app's own scorers, run in-process on every case whose task finished, beside the collection's metrics. */
  scorers?: Scorer[];
  /** Runs of each golden (each its own trace and test case); the summary gives each golden's mean and spread. @default 1 */
  trials?: number;
}

/** What a {@link Scorer} gets: the case's test-case fields and its trace. */
export interface ScorerInput<G extends ExperimentGolden = ExperimentGolden> {
  golden: G;
  /** The golden's input (single-turn) or scenario (multi-turn). */
  input: string;
  /** The task's output (single-turn), or the last assistant turn (multi-turn). */
  actualOutput: string;
  expectedOutput: string | undefined;
  context: string[] | undefined;
  retrievalContext: string[] | undefined;
  toolsCalled: ToolCall[] | undefined;
  /** The conversation a multi-turn task returned. */
  turns: Turn[] | undefined;
  /**
   * The case's span tree as `evaltrace/testing` gives it, read when the task returned: the
   * root span (not ended yet: its end time is its start) with every span that ended under it.
   * Undefined when tracing is off.
   */
  trace: CapturedTrace | undefined;
}

/** What a scorer returns: a score from 0 to 1, passing at `threshold` or above. */
export interface ScorerResult {
  /** The metric's name in the results, the summary and the table. */
  name: string;
  /** From 0 to 1. */
  score: number;
  reason?: string;
  /** @default 0.5 */
  threshold?: number;
}

/** The app's own metric: scores one case in-process. A throw, or a result that is no {@link ScorerResult}, is an errored verdict. */
export type Scorer<G extends ExperimentGolden = ExperimentGolden> = (input: ScorerInput<G>) => ScorerResult | Promise<ScorerResult>;

/** What became of one metric on one case. */
export type VerdictState = "passed" | "failed" | "errored" | "notJudged";

/** One metric's verdict on one case: the service's (read back where it returns them) or a scorer's. */
export interface MetricVerdict {
  name: string;
  state: VerdictState;
  score: number | null;
  threshold: number | null;
  /** True passed, false failed; null when errored or not judged. */
  success: boolean | null;
  reason: string | null;
  /** Why it errored (the judge or the scorer failed). */
  error: string | null;
  /** Why it was not judged (no judge configured, the service returns no verdicts ...). */
  notJudgedReason?: string;
  /** `service` (the metric collection) or `scorer` (in-process). */
  source: "service" | "scorer";
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
  /** The golden's position in the goldens (several results share it with `trials`). */
  goldenIndex: number;
  /** Which run of the golden this is, from 0 (see `trials`). */
  trial: number;
  /** The verdict of every metric (the collection's, then the scorers'); empty when the task failed. */
  metrics: MetricVerdict[];
}

/** Pass counts of one metric (or of the tasks themselves). */
export interface PassCounts {
  passed: number;
  failed: number;
  /** Cases whose judge or scorer failed: gated apart (`evaltrace eval` exits 4), never counted as passed or failed. */
  errored: number;
  /** Cases without a verdict: the service did not judge them (the emulator without a judge: NOT_JUDGED). */
  notJudged: number;
  /** passed / (passed + failed); null when nothing was judged. Failed tasks count as failed for every metric. */
  passRate: number | null;
}

/** One metric over the run: its counts, scores, and why cases errored or were not judged. */
export interface MetricSummary extends PassCounts {
  name: string;
  source: "service" | "scorer";
  /** Mean of the scores given (errored and not-judged cases have none); null when none was. */
  meanScore: number | null;
  minScore: number | null;
  /** Each distinct error, once. */
  errors: string[];
  /** Why cases were not judged, each reason once. */
  notJudgedReasons: string[];
}

/** One golden over its trials (see `trials`): per metric, the spread of its scores. */
export interface GoldenSummary {
  goldenIndex: number;
  trials: number;
  /** Trials whose task failed. */
  failedTasks: number;
  metrics: { name: string; meanScore: number | null; minScore: number | null; maxScore: number | null; stdDev: number | null; passed: number; failed: number; errored: number }[];
}

/** The outcome of a run, in numbers. */
export interface ExperimentSummary {
  identifier: string;
  metricCollection: string;
  /** Goldens in the run (each run `trials` times). */
  total: number;
  /** Tasks that finished with a usable result, and those that did not (thrown, unusable, aborted). */
  tasks: PassCounts & { aborted: number };
  /** Goldens × trials: the cases run. */
  cases: number;
  /** Test cases sent to the service. */
  sent: number;
  /** Every test run the cases went to (one per request of `chunkSize`). */
  testRunIds: string[];
  /**
   * Per metric of the collection: `available` when the service answered with results (the
   * emulator does, at `/_dev/test-runs`), else the live platform shows them and counts are of
   * failed tasks only. The collection's metrics first, then the scorers'.
   */
  metrics: MetricSummary[];
  /** Runs of each golden. */
  trials: number;
  /** One per golden, with each metric's mean and spread over its trials. */
  goldens: GoldenSummary[];
  /** Whether metric results could be read back. */
  resultsAvailable: boolean;
  durationMillis: number;
}

/** What {@link runExperiment} returns. */
export interface ExperimentResult<G extends ExperimentGolden = ExperimentGolden> {
  /** The (first) test run's id; undefined when nothing was sent (all failed or aborted). */
  testRunId: string | undefined;
  /** One per golden and trial, in the goldens' order (a golden's trials side by side). */
  results: ExperimentCaseResult<G>[];
  summary: ExperimentSummary;
}
