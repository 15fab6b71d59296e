import { Client } from "../client/client.js";
import { flush } from "../lifecycle/delivery.js";
import type { ConversationalTestCase, EvaluateInput, SingleTurnTestCase } from "../protocol/types.js";
import { checkOptions, findCollection, resolveGoldens } from "./options.js";
import { formatSummary, progressReporter } from "./report.js";
import { counts, metricNames, NOT_JUDGED_REASONS, notJudged, readVerdicts, SCORES_KEY } from "./results.js";
import { runCase } from "./run-case.js";
import { runScorers, type ScorerOutcome, scorerInput, scorerName, scorerVerdicts } from "./scorers.js";
import { goldenSummaries, metricSummaries } from "./tally.js";
import type { ExperimentCaseResult, ExperimentGolden, ExperimentOptions, ExperimentResult, ExperimentSummary } from "./types.js";

type TestCase = SingleTurnTestCase | ConversationalTestCase;

/** Largest body of one `POST /v1/evaluate`: the spec names no limit; this stays well inside any proxy's. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** The test cases in requests of at most `chunkSize` cases and {@link MAX_REQUEST_BYTES}. */
function chunks(cases: TestCase[], chunkSize: number): TestCase[][] {
  const out: TestCase[][] = [];
  let current: TestCase[] = [];
  let bytes = 0;
  for (const tc of cases) {
    const size = Buffer.byteLength(JSON.stringify(tc)) + 1;
    if (current.length > 0 && (current.length >= chunkSize || bytes + size > MAX_REQUEST_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(tc);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * Runs `one` on each item with at most `concurrency` at once, in the goldens' order. After an
 * abort no task starts and the running ones are not waited for (they got the signal).
 */
async function runAll<T>(goldens: T[], concurrency: number, signal: AbortSignal, one: (golden: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const aborted = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  const worker = async () => {
    while (next < goldens.length && !signal.aborted) {
      const i = next++;
      await one(goldens[i]!, i);
    }
  };
  const workers = Array.from({ length: Math.min(concurrency, goldens.length) }, worker);
  await Promise.race([Promise.all(workers), aborted]);
}

/**
 * The test case with the scorers' verdicts in its `additionalMetadata` (under {@link SCORES_KEY}):
 * the platform shows them beside the collection's, and a later run compares with them (`--baseline`).
 */
function withScores(testCase: TestCase, outcomes: readonly ScorerOutcome[]): TestCase {
  const scores = outcomes.filter((o) => o.ok).map(({ verdict: v }) => ({ name: v.name, score: v.score, threshold: v.threshold, success: v.success, ...(v.reason ? { reason: v.reason } : {}) }));
  return { ...testCase, additionalMetadata: { ...testCase.additionalMetadata, [SCORES_KEY]: scores } };
}

/** One run of a golden: the golden, its position, and which trial. */
interface CaseSlot {
  golden: ExperimentGolden;
  goldenIndex: number;
  trial: number;
}

/** `runExperiment` (./entry.ts), the summary table printed to the output or not (the CLI prints it to stdout). */
export async function experiment<G extends ExperimentGolden>(options: ExperimentOptions<G>, printSummary: boolean): Promise<ExperimentResult<G>> {
  const started = Date.now();
  const checked = checkOptions(options as ExperimentOptions<ExperimentGolden>);
  const { identifier, metricCollection, concurrency, trials, scorers } = checked;
  const out = options.output === undefined ? process.stderr : options.output;
  const client = options.client ?? new Client();
  try {
    const { goldens, multiTurn } = await resolveGoldens(options as ExperimentOptions<ExperimentGolden>, client);
    const collection = await findCollection(client, metricCollection, multiTurn);
    const controller = new AbortController();
    const forward = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    else options.signal?.addEventListener("abort", forward, { once: true });

    const slots: CaseSlot[] = goldens.flatMap((golden, goldenIndex) => Array.from({ length: trials }, (_, trial) => ({ golden, goldenIndex, trial })));
    const results: ExperimentCaseResult<G>[] = slots.map(({ golden, goldenIndex, trial }) => ({
      golden: golden as G,
      actualOutput: undefined,
      traceUuid: undefined,
      error: "aborted before it finished",
      aborted: true,
      goldenIndex,
      trial,
      metrics: [],
    }));
    const testCases: (TestCase | undefined)[] = new Array(slots.length).fill(undefined);
    const scored: (ScorerOutcome[] | undefined)[] = new Array(slots.length).fill(undefined);
    const progress = progressReporter(out, identifier, slots.length);
    let done = 0;
    let failed = 0;
    const task = options.task as (golden: ExperimentGolden, ctx: { index: number; trial: number; signal: AbortSignal }) => unknown;
    await runAll(slots, concurrency, controller.signal, async ({ golden, goldenIndex, trial }, index) => {
      const run = await runCase(task, golden, { index: goldenIndex, trial, signal: controller.signal }, identifier, scorers.length > 0);
      const { made, traceUuid } = run;
      // A case that finishes after the abort is not part of the run.
      if (controller.signal.aborted) return;
      const base = { golden: golden as G, traceUuid, goldenIndex, trial, metrics: [] };
      if (made.ok) {
        // The scorers run outside the case's trace (their own calls are traces of their own).
        const outcomes = scorers.length > 0 ? await runScorers(scorers, scorerInput(golden, made.testCase, made.actualOutput, run.trace)) : undefined;
        if (controller.signal.aborted) return;
        scored[index] = outcomes;
        results[index] = { ...base, actualOutput: made.actualOutput };
        testCases[index] = outcomes ? withScores(made.testCase, outcomes) : made.testCase;
      } else {
        results[index] = { ...base, actualOutput: undefined, error: made.error };
        failed++;
      }
      progress.update(++done, failed);
    });
    options.signal?.removeEventListener("abort", forward);
    progress.stop(done);

    const sendable = testCases.filter((tc): tc is TestCase => tc !== undefined);
    const testRunIds: string[] = [];
    const sentPerRun: number[] = [];
    for (const chunk of chunks(sendable, checked.chunkSize)) {
      const input = { metricCollection, testCases: chunk, identifier, ...(checked.hyperparameters ? { hyperparameters: checked.hyperparameters } : {}) } as EvaluateInput;
      const { testRunId } = await client.evaluate.run(input);
      testRunIds.push(testRunId);
      sentPerRun.push(chunk.length);
    }
    // The traces go out before the run is reported (a CLI exits right after).
    await flush();

    const aborted = results.filter((r) => r.aborted).length;
    const serviceNames = metricNames(collection);
    const verdicts = testRunIds.length > 0 ? await readVerdicts(client, testRunIds, sentPerRun, serviceNames) : undefined;
    const scorerNames = scorers.map((scorer, i) => scorerName(scorer, i, scored));
    let sent = 0;
    testCases.forEach((tc, i) => {
      if (tc === undefined) return;
      const service = verdicts?.[sent] ?? serviceNames.map((name) => notJudged(name, NOT_JUDGED_REASONS.noResults, "service"));
      sent++;
      results[i]!.metrics = [...service, ...scorerVerdicts(scored[i] ?? [], scorerNames)];
    });
    const names = [...serviceNames.map((name) => ({ name, source: "service" as const })), ...scorerNames.map((name) => ({ name, source: "scorer" as const }))];
    const summary: ExperimentSummary = {
      identifier,
      metricCollection,
      total: goldens.length,
      cases: slots.length,
      trials,
      tasks: { ...counts(sendable.length, failed + aborted, 0), aborted },
      sent: sendable.length,
      testRunIds,
      metrics: metricSummaries(results, names),
      goldens: goldenSummaries(results, goldens.length, names.map((n) => n.name)),
      resultsAvailable: verdicts !== undefined,
      durationMillis: Date.now() - started,
    };
    if (printSummary) out?.write(formatSummary(summary, results));
    return { testRunId: testRunIds[0], results, summary };
  } finally {
    if (!options.client) await client.close();
  }
}
