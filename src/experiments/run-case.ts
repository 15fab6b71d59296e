import { context, ROOT_CONTEXT } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { MultiTurnGolden, SingleTurnGolden, ToolCall } from "../protocol/types.js";
import type { Runtime } from "../runtime/runtime.js";
import { isPlainObject } from "../protocol/schema.js";
import { describeError } from "../util/describe-error.js";
import { foreignSpanData, getSpanData, ownerOf } from "../spans/span-data.js";
import { currentObservedSpan } from "../tracing/context.js";
import { observe } from "../tracing/observe.js";
import { currentTraceUuid, updateCurrentTrace } from "../tracing/update.js";
import type { CapturedTrace } from "../testing/captured.js";
import { caseTrace } from "./case-trace.js";
import { type Made, multiTurnCase, singleTurnCase, tools } from "./test-case.js";
import type { ExperimentGolden, TaskContext } from "./types.js";

/** The metadata key of an experiment's traces: the run's identifier. */
export const EXPERIMENT_METADATA_KEY = "evaltrace.experiment";

/** What one task run gave: its test case (or why there is none), its trace's uuid and, when asked for, its span tree. */
export interface CaseRun {
  made: Made;
  traceUuid: string | undefined;
  trace?: CapturedTrace | undefined;
}

const strings = (v: unknown) => (Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))) : undefined);

/** The tool calls of the tool spans the trace holds now (ended, not yet sent), in start order. */
function toolCallsOf(): ToolCall[] {
  const span = currentObservedSpan();
  const rt = span ? (ownerOf(span) as Runtime | undefined) : undefined;
  const record = span && rt?.heldTrace?.(span.spanContext().traceId);
  if (!record) return [];
  const spans: ReadableSpan[] = [...record.spans, ...(record.held ?? [])];
  const calls: { at: number; call: ToolCall }[] = [];
  for (const s of spans) {
    const data = getSpanData(s) ?? foreignSpanData(s);
    if (data.type !== "tool") continue;
    const call: ToolCall = { name: data.name ?? s.name };
    const description = data.fields.description;
    if (typeof description === "string") call.description = description;
    if (data.input !== undefined && data.input !== null) call.inputParameters = isPlainObject(data.input) ? data.input : { input: data.input };
    if (data.output !== undefined) call.output = data.output;
    calls.push({ at: s.startTime[0] * 1e9 + s.startTime[1], call });
  }
  return calls.sort((a, b) => a.at - b.at).map((c) => c.call);
}

/** The golden's fields as the trace's test case, and the run's identifier in its metadata. */
function describeTrace(golden: ExperimentGolden, identifier: string, index: number, trial: number): void {
  const single = "input" in golden;
  const g = golden as SingleTurnGolden & MultiTurnGolden;
  updateCurrentTrace({
    name: identifier,
    input: single ? g.input : g.scenario,
    metadata: { [EXPERIMENT_METADATA_KEY]: identifier, "evaltrace.experiment.golden": index, ...(trial > 0 ? { "evaltrace.experiment.trial": trial } : {}) },
    ...(typeof g.expectedOutput === "string" ? { expectedOutput: g.expectedOutput } : {}),
    ...(Array.isArray(g.context) ? { context: strings(g.context) } : {}),
    ...(Array.isArray(g.retrievalContext) ? { retrievalContext: strings(g.retrievalContext) } : {}),
    ...(Array.isArray(g.expectedTools) ? { expectedTools: tools(g.expectedTools) } : {}),
  });
}

/**
 * Runs the task on one golden as the root of a trace of its own (whatever span is current where
 * the experiment runs), and makes its test case. A throw is returned as the case's error.
 */
export async function runCase(
  task: (golden: ExperimentGolden, ctx: TaskContext) => unknown,
  golden: ExperimentGolden,
  ctx: TaskContext,
  identifier: string,
  wantTrace = false,
): Promise<CaseRun> {
  const multiTurn = "scenario" in golden;
  let traceUuid: string | undefined;
  let made: Made | undefined;
  let trace: CapturedTrace | undefined;
  // The task's throw, or an unusable output, ends the root span as errored.
  const traced = observe({ name: identifier }, async (_golden: ExperimentGolden): Promise<unknown> => {
    traceUuid = currentTraceUuid();
    describeTrace(golden, identifier, ctx.index, ctx.trial);
    const output = await task(golden, ctx);
    made = multiTurn ? multiTurnCase(golden as MultiTurnGolden, output) : singleTurnCase(golden as SingleTurnGolden, output, toolCallsOf());
    if (!made.ok) throw new UnusableOutput(made.error);
    const tc = made.testCase as { toolsCalled?: ToolCall[] };
    updateCurrentTrace({ output: made.actualOutput, ...(tc.toolsCalled ? { toolsCalled: tc.toolsCalled } : {}) });
    // For the scorers: the tree as it stands when the task returned.
    if (wantTrace) trace = caseTrace({ name: identifier, input: multiTurn ? (golden as MultiTurnGolden).scenario : (golden as SingleTurnGolden).input, output: made.actualOutput });
    return output;
  });
  try {
    await context.with(ROOT_CONTEXT, () => traced(golden));
  } catch (err) {
    if (!(err instanceof UnusableOutput)) made = { ok: false, error: `the task threw: ${describeError(err)}` };
  }
  return { made: made ?? { ok: false, error: "the task did not finish" }, traceUuid, ...(wantTrace ? { trace } : {}) };
}

class UnusableOutput extends Error {}
