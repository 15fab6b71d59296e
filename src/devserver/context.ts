import type { Changes } from "./store/journal.js";
import type { MetricRecord, State } from "./store/store.js";
import type { TimeSlicer } from "./time-slicer.js";

/** What a judge is asked: one metric over one test case (or conversation). */
export interface JudgeInput {
  metric: Pick<MetricRecord, "name" | "multiTurn" | "criteria" | "evaluationSteps" | "evaluationParams">;
  testCase: unknown;
  target: "test-run" | "trace" | "span" | "thread";
  chatbotRole?: string;
}

/** A judge function: the emulator judges nothing unless one is given. */
export type Judge = (input: JudgeInput) => { score: number; reason?: string } | Promise<{ score: number; reason?: string }>;

/** One metric's result: a score (0..1) and whether it passed, or why it has none. */
export interface MetricResult {
  metric: string;
  threshold: number;
  /** 0..1; null when the metric was not judged (see `error`). */
  score: number | null;
  reason: string | null;
  /** Whether the score passes the threshold; null when there is no score. */
  success: boolean | null;
  strictMode: boolean;
  /** Why there is no score: the judge failed, or does not judge this metric. */
  error?: string;
}

/** How an evaluation (a job or a test run) ended, or that it waits for the judge. */
export interface Verdict {
  status: "NOT_JUDGED" | "PENDING" | "COMPLETED" | "ERRORED";
  message?: string;
  results?: unknown[];
}

/** Judging after the answer, by a judge endpoint (`judging/background.ts`). */
export interface JudgeLater {
  /** The endpoint's judge, bounded in concurrency and time. */
  judge: Judge;
  /** Where the judge is, for messages: `model at url`. */
  label: string;
  /** Runs `work` in the background; its verdict replaces the record's status and results when it ends. */
  start(kind: "job" | "testRun", id: string, work: () => Promise<Verdict>): void;
}

/** The subscription plan the emulator pretends to be on; dataset versions need `team`. */
export type Plan = "free" | "team";

/** What a route handler gets. */
export interface RouteContext {
  state: State;
  now: number;
  plan: Plan;
  region: string;
  baseUrl: string;
  /** The judge function given to `startDevServer`: it judges inside the request. */
  judge: Judge | undefined;
  /** The judge endpoint (`judgeUrl`): it judges in the background, after the answer. */
  judging: JudgeLater | undefined;
  params: Record<string, string>;
  /** The request's query parameters (reads take theirs there). */
  query: URLSearchParams;
  body: unknown;
  /** Where a route records which traces, prompts and datasets it created or changed (for the store). */
  changed: Changes;
  /** Digest of the whole body (canonical JSON), computed at most once per request. */
  bodyDigest?: () => Promise<string>;
  /** Cuts long work into slices of event-loop time: loops over spans tick it. */
  slicer: TimeSlicer;
  /** Whether off-spec fields and types are rejected (`--strict`) or accepted as the live service does. */
  strict: boolean;
  /** Notes a relaxed rule for the request log (lenient mode); repeats within a request are dropped. */
  note: (line: string) => void;
}

/** What a route handler returns. */
export interface RouteResult {
  status?: number;
  body: Record<string, unknown>;
}

export type Handler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
