import type { ExperimentGolden, ExperimentOptions, ExperimentResult } from "./types.js";

/**
 * Runs an experiment: `task(golden)` for each golden (given, or pulled from a dataset) with
 * bounded concurrency, each run observed as a trace of its own; turns the results into test
 * cases and posts them as a test run (`POST /v1/evaluate`) of `metricCollection`. A task that
 * throws (or returns something that is no test case) is a failed case, not a failed run; an
 * abort sends what finished. Progress and a summary table go to `output` (stderr by default).
 *
 * The runner loads on the first call, not when evaltrace is imported (start-up: an app that
 * never runs an experiment never compiles it).
 *
 * @example
 * const { summary } = await runExperiment({
 *   identifier: "prompt-v2",
 *   dataset: "support-questions",
 *   metricCollection: "Support quality",
 *   task: async (golden) => answer(golden.input),
 * });
 */
export async function runExperiment<G extends ExperimentGolden>(options: ExperimentOptions<G>): Promise<ExperimentResult<G>> {
  const { experiment } = await import("./run-experiment.js");
  return experiment(options, true);
}
