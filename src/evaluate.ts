import type { EvaluationOutcome } from "./export/types.js";
import { isFailed, isSent, isSettled, type TraceView } from "./traces/trace-view.js";
import type { Runtime } from "./runtime/runtime.js";
import { activeRuntime } from "./runtime/configure.js";
import { isCapturing } from "./runtime/trace-tap.js";
import { currentObservedSpan } from "./tracing/context.js";
import { traceKeyOf } from "./tracing/trace-key.js";

/** Options of the offline evaluations. */
export interface OfflineEvaluationOptions {
  /** Name of the metric collection to run: multi-turn for threads, single-turn for traces and spans. */
  metricCollection: string;
  /** Re-run metrics that already have results. @default false */
  overwriteMetrics?: boolean;
}

/** Options of {@link evaluateThread}. */
export interface ThreadEvaluationOptions extends OfflineEvaluationOptions {
  /** The chatbot's role; only the role-adherence metric needs it. */
  chatbotRole?: string;
}

/** Why an offline evaluation is not sent while evaltrace/testing captures traces (nothing is sent then). */
const CAPTURING = "not sent: evaltrace/testing is capturing traces (nothing goes to the service meanwhile)";

const failed = (error: string): Promise<EvaluationOutcome> => Promise.resolve({ status: "failed", error });

function check(id: unknown, what: string, options: OfflineEvaluationOptions): string | undefined {
  if (typeof id !== "string" || id.length === 0) return `${what} must be a non-empty string`;
  if (!options || typeof options.metricCollection !== "string" || options.metricCollection.length === 0) {
    return "metricCollection must be a non-empty string";
  }
  return undefined;
}

function body(options: ThreadEvaluationOptions): Record<string, unknown> {
  // The spec names the key `metricCollections`; the live service reads `metricCollection`.
  const b: Record<string, unknown> = { metricCollections: options.metricCollection, metricCollection: options.metricCollection };
  if (options.chatbotRole !== undefined) b.chatbotRole = options.chatbotRole;
  if (options.overwriteMetrics !== undefined) b.overwriteMetrics = options.overwriteMetrics;
  return b;
}

/** Delivered with every span, late ones included, and none still open. */
const fullyDelivered = (r: TraceView) => isFailed(r) || (isSettled(r) && r.open === 0);

function run(rt: Runtime, path: string, options: ThreadEvaluationOptions, records: TraceView[], done: (r: TraceView) => boolean, known?: string[]) {
  const currentTrace = currentObservedSpan()?.spanContext().traceId;
  const inside = records.some((r) => r.traceId === currentTrace);
  const ready = async () => {
    await rt.whenDelivered(records, done);
    const lost = records.find(isFailed);
    return lost ? `trace ${lost.uuid} it refers to was not delivered (${lost.failure ?? "unknown"})` : undefined;
  };
  // A trace routed to another project's key (observe({ apiKey })) is evaluated with that key.
  const traceIds = records.length > 0 ? records.map((r) => r.traceId) : (known ?? []);
  const apiKey = traceIds.map((id) => traceKeyOf(rt, id)).find((k) => k !== undefined);
  return rt.evaluate(path, body(options), ready, inside, apiKey);
}

/**
 * Evaluates a whole conversation offline (spec 4.7) with a multi-turn collection. The request
 * goes out only after every trace of that thread known to the SDK has been delivered, so the
 * service never evaluates a thread before it has all its turns. Call it when the conversation
 * is complete. Never throws; resolves with what happened.
 */
export function evaluateThread(threadId: string, options: ThreadEvaluationOptions): Promise<EvaluationOutcome> {
  const rt = activeRuntime();
  if (!rt) return failed("tracing is off");
  if (isCapturing()) return failed(CAPTURING);
  const bad = check(threadId, "threadId", options);
  if (bad) return failed(bad);
  const records = [...rt.heldTraces()].filter((r) => r.fields.threadId === threadId && r.phase !== "failed");
  return run(rt, `/v1/evaluate/threads/${encodeURIComponent(threadId)}`, options, records, fullyDelivered);
}

/** Evaluates one trace offline with a single-turn collection, after that trace was delivered. Never throws. */
export function evaluateTrace(uuid: string, options: OfflineEvaluationOptions): Promise<EvaluationOutcome> {
  const rt = activeRuntime();
  if (!rt) return failed("tracing is off");
  if (isCapturing()) return failed(CAPTURING);
  const bad = check(uuid, "trace uuid", options);
  if (bad) return failed(bad);
  const traceId = uuid.replace(/-/g, "");
  if (rt.isDroppedTrace(traceId)) return failed(`trace ${uuid} was dropped by the app (updateCurrentTrace({ drop: true })): not evaluated`);
  const rec = rt.heldTrace(traceId);
  const records = rec && rec.phase !== "failed" ? [rec] : [];
  const { chatbotRole: _ignored, ...rest } = options as ThreadEvaluationOptions;
  return run(rt, `/v1/evaluate/traces/${encodeURIComponent(uuid)}`, rest, records, (r) => isFailed(r) || isSent(r), [traceId]);
}

/** Evaluates one span offline with a single-turn collection, after that span was delivered. Never throws. */
export function evaluateSpan(uuid: string, options: OfflineEvaluationOptions): Promise<EvaluationOutcome> {
  const rt = activeRuntime();
  if (!rt) return failed("tracing is off");
  if (isCapturing()) return failed(CAPTURING);
  const bad = check(uuid, "span uuid", options);
  if (bad) return failed(bad);
  // A span uuid starts with its trace id's first half: wait for that trace to be fully
  // delivered (the span may have ended late, after its trace was sent).
  const prefix = uuid.replace(/-/g, "").slice(0, 16);
  const records = [...rt.heldTraces()].filter((r) => r.traceId.startsWith(prefix) && r.phase !== "failed");
  const { chatbotRole: _ignored, ...rest } = options as ThreadEvaluationOptions;
  return run(rt, `/v1/evaluate/spans/${encodeURIComponent(uuid)}`, rest, records, fullyDelivered);
}
