import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { type Dict, dict, toDict } from "./dict.js";

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

/** A version released from a commit (`POST /v1/prompts/:alias/versions`). */
export interface PromptVersion {
  version: string;
  hash: string;
  createdAt: string;
}

export interface PromptRecord {
  id: string;
  alias: string;
  branches: Dict<string[]>;
  commits: Dict<PromptCommit>;
  /** Released versions, oldest first (absent in a store written before versions existed). */
  versions?: PromptVersion[];
  /** Label → the version it points to. */
  labels?: Dict<string>;
}

export interface GoldenRecord extends Record<string, unknown> {
  finalized: boolean;
}

export interface DatasetRecord {
  id: string;
  alias: string;
  multiTurn: boolean;
  unversioned: GoldenRecord[];
  versions: Dict<GoldenRecord[]>;
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

/**
 * Everything the emulator stores; plain JSON so that it persists as is. Every record keyed by a
 * sender's id is a prototype-less {@link Dict}, so that any id is a plain key.
 */
export interface State {
  seq: number;
  keys: KeyRecord[];
  metrics: MetricRecord[];
  collections: CollectionRecord[];
  testRuns: TestRunRecord[];
  traces: Dict<StoredTrace>;
  /** span uuid -> trace uuid */
  spanIndex: Dict<string>;
  /** thread id -> trace uuids */
  threads: Dict<string[]>;
  /** user id -> trace uuids */
  users: Dict<string[]>;
  jobs: EvaluationJob[];
  prompts: Dict<PromptRecord>;
  datasets: Dict<DatasetRecord>;
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
    traces: dict(),
    spanIndex: dict(),
    threads: dict(),
    users: dict(),
    jobs: [],
    prompts: dict(),
    datasets: dict(),
    idempotency: [],
  };
}

/** A new id with a readable prefix. */
export function newId(state: State, prefix: string): string {
  state.seq++;
  return `${prefix}_${state.seq.toString(36)}${randomBytes(4).toString("hex")}`;
}

/** A prompt read back from JSON, its id-keyed records made prototype-less. */
export function revivePrompt(p: PromptRecord): PromptRecord {
  return { ...p, branches: toDict(p.branches), commits: toDict(p.commits), ...(p.labels ? { labels: toDict(p.labels) } : {}) };
}

/** A dataset read back from JSON, its id-keyed records made prototype-less. */
export function reviveDataset(d: DatasetRecord): DatasetRecord {
  return { ...d, versions: toDict(d.versions) };
}

/**
 * A state read back from JSON (the whole-state file format): every id-keyed record made
 * prototype-less; a file written before `idempotency` existed loads with none.
 */
export function reviveState(raw: Partial<State> & Omit<State, "idempotency">): State {
  return {
    ...raw,
    traces: toDict(raw.traces),
    spanIndex: toDict(raw.spanIndex),
    threads: toDict(raw.threads),
    users: toDict(raw.users),
    prompts: toDict(raw.prompts, revivePrompt),
    datasets: toDict(raw.datasets, reviveDataset),
    idempotency: Array.isArray(raw.idempotency) ? raw.idempotency : [],
  };
}

/** Loads state from `file` (one JSON document) when it exists. */
export function loadState(file: string | undefined): State {
  if (!file || !existsSync(file)) return emptyState();
  return reviveState(JSON.parse(readFileSync(file, "utf8")) as Partial<State> & Omit<State, "idempotency">);
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
