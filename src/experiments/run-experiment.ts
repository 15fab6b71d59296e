import { Client } from "../client/client.js";
import { flush } from "../lifecycle/delivery.js";
import type { ConversationalTestCase, EvaluateInput, SingleTurnTestCase } from "../protocol/types.js";
import { checkOptions, findCollection, resolveGoldens } from "./options.js";
import { formatSummary, progressReporter } from "./report.js";
import { counts, metricNames, readVerdicts } from "./results.js";
import { runCase } from "./run-case.js";
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
 * Runs `task` on `goldens` with at most `concurrency` at once, in the goldens' order. After an
 * abort no task starts and the running ones are not waited for (they got the signal).
 */
async function runAll(
  goldens: ExperimentGolden[],
  concurrency: number,
  signal: AbortSignal,
  one: (golden: ExperimentGolden, index: number) => Promise<void>,
): Promise<void> {
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

/** `runExperiment` (./entry.ts), the summary table printed to the output or not (the CLI prints it to stdout). */
export async function experiment<G extends ExperimentGolden>(options: ExperimentOptions<G>, printSummary: boolean): Promise<ExperimentResult<G>> {
  const started = Date.now();
  const checked = checkOptions(options as ExperimentOptions<ExperimentGolden>);
  const { identifier, metricCollection, concurrency } = checked;
  const out = options.output === undefined ? process.stderr : options.output;
  const client = options.client ?? new Client();
  try {
    const { goldens, multiTurn } = await resolveGoldens(options as ExperimentOptions<ExperimentGolden>, client);
    const collection = await findCollection(client, metricCollection, multiTurn);
    const controller = new AbortController();
    const forward = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    else options.signal?.addEventListener("abort", forward, { once: true });

    const results: ExperimentCaseResult<G>[] = goldens.map((golden) => ({ golden: golden as G, actualOutput: undefined, traceUuid: undefined, error: "aborted before it finished", aborted: true }));
    const testCases: (TestCase | undefined)[] = new Array(goldens.length).fill(undefined);
    const progress = progressReporter(out, identifier, goldens.length);
    let done = 0;
    let failed = 0;
    const task = options.task as (golden: ExperimentGolden, ctx: { index: number; signal: AbortSignal }) => unknown;
    await runAll(goldens, concurrency, controller.signal, async (golden, index) => {
      const { made, traceUuid } = await runCase(task, golden, { index, signal: controller.signal }, identifier);
      // A case that finishes after the abort is not part of the run.
      if (controller.signal.aborted) return;
      if (made.ok) {
        results[index] = { golden: golden as G, actualOutput: made.actualOutput, traceUuid };
        testCases[index] = made.testCase;
      } else {
        results[index] = { golden: golden as G, actualOutput: undefined, traceUuid, error: made.error };
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
    const names = metricNames(collection);
    const verdicts = testRunIds.length > 0 ? await readVerdicts(client, testRunIds, sentPerRun, names) : undefined;
    const summary: ExperimentSummary = {
      identifier,
      metricCollection,
      total: goldens.length,
      tasks: { ...counts(sendable.length, failed + aborted, 0), aborted },
      sent: sendable.length,
      testRunIds,
      metrics: names.map((name) => {
        const v = verdicts?.get(name);
        return { name, ...counts(v?.passed ?? 0, (v?.failed ?? 0) + failed, v?.notJudged ?? (verdicts ? 0 : sendable.length)) };
      }),
      resultsAvailable: verdicts !== undefined,
      durationMillis: Date.now() - started,
    };
    if (printSummary) out?.write(formatSummary(summary));
    return { testRunId: testRunIds[0], results, summary };
  } finally {
    if (!options.client) await client.close();
  }
}
