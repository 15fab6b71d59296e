import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { EvaltraceError, ValidationError } from "../client/errors.js";
import type { Client } from "../client/client.js";
import { type Baseline, compareWithBaseline, formatComparison, readBaseline } from "../experiments/baseline.js";
import { formatSummary } from "../experiments/report.js";
import { experiment } from "../experiments/run-experiment.js";
import type { ExperimentGolden, ExperimentOptions } from "../experiments/types.js";
import { shutdown } from "../lifecycle/delivery.js";
import { configure } from "../runtime/configure.js";
import { parseCommand, usageError } from "./args.js";
import { clientOf, connectionOf, connectionUsage, unreachable } from "./connection.js";
import { erroredReport, gate } from "./eval-gate.js";
import { type EvalModule, evalFiles, loadEvalModule, runName } from "./eval-modules.js";
import { EXIT } from "./exit-codes.js";
import { InputError } from "./input-error.js";

/** Usage of `evaltrace eval`. */
export const evalUsage = `  eval MODULE|DIR  Run an experiment: MODULE (ESM, CommonJS or TypeScript) exports task(golden) and
                 optionally goldens, metricCollection, identifier, hyperparameters, scorers, trials;
                 a directory runs each of its *.eval.* modules
         --dataset A          pull the goldens from dataset A (else the module's goldens)
         --dataset-version V  the dataset version to pull (default the latest)
         --metric-collection C  the collection that judges the run (else the module's)
         --identifier NAME    name of the run (default: the module's, else the file name)
         --concurrency N      tasks at once (default 5)
         --trials N           runs of each golden (default the module's, else 1)
         --min-pass-rate R    exit 1 when the tasks' or a judged metric's pass rate is under R (0..1);
                              metrics the service did not judge (NOT_JUDGED) are not gated
         --allow-errored      do not exit 4 when a judge or a scorer failed on a case
         --baseline RUN       compare each case with an earlier test run (its id or identifier)
         --fail-on-regression exit 1 when a case passed in the baseline and fails now
${connectionUsage(21)}`;

const options = {
  dataset: { type: "string" },
  "dataset-version": { type: "string" },
  "metric-collection": { type: "string" },
  identifier: { type: "string" },
  concurrency: { type: "string" },
  trials: { type: "string" },
  "min-pass-rate": { type: "string" },
  "allow-errored": { type: "boolean" },
  baseline: { type: "string" },
  "fail-on-regression": { type: "boolean" },
  "api-key": { type: "string" },
  "base-url": { type: "string" },
} as const;

/** The command line, checked. */
interface EvalArgs {
  min: number | undefined;
  concurrency: number | undefined;
  trials: number | undefined;
  dataset: string | { alias: string; version: string } | undefined;
  metricCollection: string | undefined;
  identifier: string | undefined;
  allowErrored: boolean;
  failOnRegression: boolean;
}

const positive = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/**
 * `evaltrace eval`: 0 when every run passed its gates; 1 on bad input, a pass rate under
 * `--min-pass-rate` or a regression with `--fail-on-regression`; 2 when the service refused; 3
 * when it was unreachable; 4 when a judge or scorer errored (unless `--allow-errored`). With a
 * directory, the worst exit of its runs.
 */
export async function evalCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand("eval", argv, options, `Usage: evaltrace eval MODULE|DIR [options]\n\n${evalUsage}`);
  if (!parsed.ok) return parsed.code;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usageError("eval", `give exactly one MODULE or directory; got ${positionals.length}`);
  const min = values["min-pass-rate"] === undefined ? undefined : Number(values["min-pass-rate"]);
  if (min !== undefined && !(min >= 0 && min <= 1)) return usageError("eval", `--min-pass-rate must be a number from 0 to 1; got "${values["min-pass-rate"]}"`);
  const concurrency = positive(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) return usageError("eval", "--concurrency must be a positive integer");
  const trials = positive(values.trials);
  if (trials !== undefined && !(Number.isInteger(trials) && trials >= 1)) return usageError("eval", "--trials must be a positive integer");
  if (values["dataset-version"] !== undefined && values.dataset === undefined) return usageError("eval", "--dataset-version needs --dataset");
  if (values["fail-on-regression"] && values.baseline === undefined) return usageError("eval", "--fail-on-regression needs --baseline");
  const path = resolve(positionals[0]!);
  if (!existsSync(path)) return usageError("eval", `no module ${positionals[0]}`);
  let files: string[];
  try {
    files = evalFiles(path);
  } catch (err) {
    if (err instanceof InputError) return usageError("eval", err.message);
    throw err;
  }
  const connection = connectionOf("eval", values);
  if (typeof connection === "number") return connection;
  // The module's traces go where the run goes.
  configure({ apiKey: connection.apiKey, baseUrl: connection.baseUrl });
  const args: EvalArgs = {
    min,
    concurrency,
    trials,
    dataset: values.dataset === undefined ? undefined : values["dataset-version"] === undefined ? values.dataset : { alias: values.dataset, version: values["dataset-version"] },
    metricCollection: values["metric-collection"],
    identifier: values.identifier,
    allowErrored: values["allow-errored"] === true,
    failOnRegression: values["fail-on-regression"] === true,
  };
  const client = clientOf(connection);
  try {
    let baseline: Baseline | undefined;
    if (values.baseline !== undefined) {
      const read = await readBaseline(client, values.baseline);
      if (read === undefined) return usageError("eval", `--baseline: no test run with id or identifier ${values.baseline}`);
      if (typeof read === "string") return usageError("eval", `--baseline: ${read}`);
      baseline = read;
    }
    let worst: number = EXIT.ok;
    for (const file of files) {
      const code = await runOne(file, files.length > 1, args, client, baseline);
      // A refused or unreachable service stops the rest.
      if (code === EXIT.rejected || code === EXIT.unreachable) return code;
      worst = Math.max(worst, code);
    }
    return worst;
  } catch (err) {
    const code = unreachable("eval", connection.baseUrl, err);
    if (code !== undefined) return code;
    if (err instanceof EvaltraceError) {
      process.stderr.write(`evaltrace eval: ${err.message}\n`);
      return EXIT.rejected;
    }
    throw err;
  } finally {
    await client.close();
    await shutdown();
  }
}

/** One module's run: loaded, run, printed and gated; its exit code. */
async function runOne(file: string, several: boolean, args: EvalArgs, client: Client, baseline: Baseline | undefined): Promise<number> {
  let mod: EvalModule;
  try {
    mod = await loadEvalModule(file);
  } catch (err) {
    if (err instanceof InputError) return usageError("eval", err.message);
    throw err;
  }
  const shown = several ? runName(file) : file;
  if (typeof mod.task !== "function") return usageError("eval", `${shown} must export a function task(golden); it exports ${Object.keys(mod).join(", ") || "nothing"}`);
  const metricCollection = args.metricCollection ?? mod.metricCollection;
  if (typeof metricCollection !== "string") return usageError("eval", `${shown}: name the metric collection: --metric-collection C, or export metricCollection from the module`);
  if (args.dataset === undefined && mod.goldens === undefined) return usageError("eval", `${shown} exports no goldens: export goldens, or pass --dataset ALIAS`);
  const own = typeof mod.identifier === "string" ? mod.identifier : runName(file);
  const identifier = args.identifier === undefined ? own : several ? `${args.identifier}/${own}` : args.identifier;
  try {
    const { summary, results } = await experiment(
      {
        identifier,
        ...(args.dataset === undefined ? { goldens: mod.goldens } : { dataset: args.dataset }),
        task: mod.task,
        metricCollection,
        ...(mod.hyperparameters === undefined ? {} : { hyperparameters: mod.hyperparameters }),
        ...(mod.scorers === undefined ? {} : { scorers: mod.scorers }),
        ...(args.trials !== undefined ? { trials: args.trials } : mod.trials === undefined ? {} : { trials: mod.trials }),
        ...(args.concurrency === undefined ? {} : { concurrency: args.concurrency }),
        client,
      } as ExperimentOptions<ExperimentGolden>,
      false,
    );
    process.stdout.write(formatSummary(summary, results));
    let code: number = EXIT.ok;
    if (baseline) {
      const comparison = compareWithBaseline(baseline, results);
      process.stdout.write(formatComparison(baseline, comparison));
      if (args.failOnRegression && comparison.regressions.length > 0) {
        process.stderr.write(`evaltrace eval: ${comparison.regressions.length} regression(s) against baseline ${baseline.identifier ?? baseline.runId} (--fail-on-regression)\n`);
        code = EXIT.belowThreshold;
      }
    }
    const verdict = gate(summary, args.min);
    if (verdict.lines.length > 0) process.stdout.write(`${verdict.lines.join("\n")}\n`);
    if (!verdict.ok) {
      process.stderr.write(`evaltrace eval: a pass rate is under --min-pass-rate ${args.min}\n`);
      code = EXIT.belowThreshold;
    }
    const errored = erroredReport(summary);
    for (const line of errored.lines) process.stderr.write(`evaltrace eval: ${line}\n`);
    if (errored.count > 0 && !args.allowErrored) {
      process.stderr.write(`evaltrace eval: ${errored.count} verdict(s) errored (a judge or a scorer failed); --allow-errored to pass anyway\n`);
      return EXIT.errored;
    }
    return code;
  } catch (err) {
    if (err instanceof ValidationError || (err instanceof EvaltraceError && err.code === "configuration")) return usageError("eval", err.message);
    throw err;
  }
}
