import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** An API key as the emulator holds it (values unmasked). */
export interface KeyRecord {
  id: number;
  name: string | null;
  scope: "org" | "project";
  valid: boolean;
  value: string;
  shadowValue: string | null;
  rotatesAt: number | null;
  expiresAt: number | null;
  createdAt: number;
  lastUsed: number | null;
  /** Values that a rotation replaced: rejected as superseded. */
  retired: string[];
}

export interface MetricRecord {
  id: string;
  name: string;
  multiTurn: boolean;
  criteria?: string;
  evaluationSteps?: unknown[];
  evaluationParams?: string[];
  isDefault: boolean;
}

export interface MetricSetting {
  metric: { name: string };
  threshold: number;
  activated: boolean;
  includeReason: boolean;
  strictMode: boolean;
}

export interface CollectionRecord {
  id: string;
  name: string;
  multiTurn: boolean;
  metricSettings: MetricSetting[];
}

export interface TestRunRecord {
  id: string;
  metricCollection: string;
  multiTurn: boolean;
  identifier?: string;
  hyperparameters?: Record<string, unknown>;
  testCases: unknown[];
  status: string;
  message?: string;
  results?: unknown[];
  createdAt: string;
}

/** A stored span: what was sent, plus the list it came in. */
export type StoredSpan = Record<string, unknown> & { uuid: string; startTime: string; endTime: string; parentUuid?: string };

export interface StoredTrace {
  uuid: string;
  fields: Record<string, unknown>;
  spans: StoredSpan[];
  receivedAt: string;
  updatedAt: string;
  /** Digest of the creating request, so an identical retry is accepted as a no-op. */
  digest: string;
}

export interface EvaluationJob {
  id: string;
  trigger: "online" | "offline";
  target: "trace" | "span" | "thread";
  targetId: string;
  metricCollection: string;
  status: "NOT_JUDGED" | "COMPLETED" | "REJECTED" | "ERRORED";
  message?: string;
  chatbotRole?: string;
  results?: unknown[];
  createdAt: string;
}

export interface PromptCommit {
  hash: string;
  parent: string | null;
  branch: string;
  createdAt: string;
  content: Record<string, unknown>;
}

export interface PromptRecord {
  id: string;
  alias: string;
  branches: Record<string, string[]>;
  commits: Record<string, PromptCommit>;
}

export interface GoldenRecord extends Record<string, unknown> {
  finalized: boolean;
}

export interface DatasetRecord {
  id: string;
  alias: string;
  multiTurn: boolean;
  unversioned: GoldenRecord[];
  versions: Record<string, GoldenRecord[]>;
}

/**
 * The remembered answer to a write sent with an `Idempotency-Key`: a later request with the same
 * key from the same API key is answered with it instead of being applied again.
 */
export interface IdempotencyRecord {
  /** Which API key sent it (`org:1`, `project:2`): keys of different API keys are independent. */
  scope: string;
  /** The `Idempotency-Key` header value. */
  key: string;
  method: string;
  path: string;
  /** Digest of the request body (canonical JSON), to tell a retry from a different request. */
  bodyDigest: string;
  /** When the first request was processed (the server's clock, ms since the epoch). */
  createdAt: number;
  status: number;
  /** The response body exactly as it was sent. */
  body: string;
  /** Response headers that came from the processing (not those of authentication). */
  headers: Record<string, string>;
}

/** Everything the emulator stores; plain JSON so that it persists as is. */
export interface State {
  seq: number;
  keys: KeyRecord[];
  metrics: MetricRecord[];
  collections: CollectionRecord[];
  testRuns: TestRunRecord[];
  traces: Record<string, StoredTrace>;
  /** span uuid -> trace uuid */
  spanIndex: Record<string, string>;
  /** thread id -> trace uuids */
  threads: Record<string, string[]>;
  /** user id -> trace uuids */
  users: Record<string, string[]>;
  jobs: EvaluationJob[];
  prompts: Record<string, PromptRecord>;
  datasets: Record<string, DatasetRecord>;
  /** Remembered answers to writes sent with an `Idempotency-Key`, oldest first. */
  idempotency: IdempotencyRecord[];
}

const singleTurnDefaults = [
  "Answer Relevancy",
  "Faithfulness",
  "Hallucination",
  "Contextual Precision",
  "Contextual Recall",
  "Contextual Relevancy",
  "Bias",
  "Toxicity",
  "Summarization",
  "Task Completion",
  "Tool Correctness",
];
const multiTurnDefaults = ["Conversation Completeness", "Knowledge Retention", "Role Adherence", "Turn Relevancy"];

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}

/** A fresh state with the default metrics of every project. */
export function emptyState(): State {
  const metrics: MetricRecord[] = [
    ...singleTurnDefaults.map((name) => ({
      id: `default-${slug(name)}`,
      name,
      multiTurn: false,
      criteria: `Default metric: ${name}`,
      evaluationParams: ["input", "actualOutput"],
      isDefault: true,
    })),
    ...multiTurnDefaults.map((name) => ({
      id: `default-${slug(name)}`,
      name,
      multiTurn: true,
      criteria: `Default metric: ${name}`,
      isDefault: true,
    })),
  ];
  return {
    seq: 0,
    keys: [],
    metrics,
    collections: [],
    testRuns: [],
    traces: {},
    spanIndex: {},
    threads: {},
    users: {},
    jobs: [],
    prompts: {},
    datasets: {},
    idempotency: [],
  };
}

/** A new id with a readable prefix. */
export function newId(state: State, prefix: string): string {
  state.seq++;
  return `${prefix}_${state.seq.toString(36)}${randomBytes(4).toString("hex")}`;
}

/** Loads state from `file` when it exists; a file written before `idempotency` existed loads with none. */
export function loadState(file: string | undefined): State {
  if (!file || !existsSync(file)) return emptyState();
  const state = JSON.parse(readFileSync(file, "utf8")) as Partial<State> & Omit<State, "idempotency">;
  return { ...state, idempotency: Array.isArray(state.idempotency) ? state.idempotency : [] };
}

/**
 * Writes state to `file` before the write is acknowledged: to a temporary file first, then an
 * atomic rename, so a crash leaves either the old or the new state, never half of one.
 */
export function saveState(file: string, state: State): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}
