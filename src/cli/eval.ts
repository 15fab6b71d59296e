import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { EvaltraceError, ValidationError } from "../client/errors.js";
import { experiment } from "../experiments/run-experiment.js";
import { formatSummary } from "../experiments/report.js";
import type { ExperimentGolden, ExperimentOptions, ExperimentSummary } from "../experiments/types.js";
import { shutdown } from "../lifecycle/delivery.js";
import { configure } from "../runtime/configure.js";
import { parseCommand, usageError } from "./args.js";
import { clientOf, connectionOf, connectionUsage, unreachable } from "./connection.js";
import { EXIT } from "./exit-codes.js";

/** Usage of `evaltrace eval`. */
export const evalUsage = `  eval MODULE    Run an experiment: MODULE (ESM or CommonJS) exports task(golden) and
                 optionally goldens, metricCollection, identifier, hyperparameters
         --dataset A          pull the goldens from dataset A (else the module's goldens)
         --dataset-version V  the dataset version to pull (default the latest)
         --metric-collection C  the collection that judges the run (else the module's)
         --identifier NAME    name of the run (default: the module's, else the file name)
         --concurrency N      tasks at once (default 5)
         --min-pass-rate R    exit 1 when the tasks' or a judged metric's pass rate is under R (0..1);
                              metrics the service did not judge (NOT_JUDGED) are not gated
${connectionUsage(21)}`;

const options = {
  dataset: { type: "string" },
  "dataset-version": { type: "string" },
  "metric-collection": { type: "string" },
  identifier: { type: "string" },
  concurrency: { type: "string" },
  "min-pass-rate": { type: "string" },
  "api-key": { type: "string" },
  "base-url": { type: "string" },
} as const;

/** What the module may export (named, or on its default export / module.exports). */
interface EvalModule {
  task?: unknown;
  goldens?: unknown;
  metricCollection?: unknown;
  identifier?: unknown;
  hyperparameters?: unknown;
}

async function load(file: string): Promise<EvalModule> {
  const mod = (await import(pathToFileURL(file).href)) as EvalModule & { default?: EvalModule };
  // CommonJS: module.exports arrives as the default export (named ones only when Node can see them).
  return mod.task === undefined && mod.default && typeof mod.default === "object" ? mod.default : mod;
}

/** The lines of the pass-rate gate, and whether it passed. */
export function gate(summary: ExperimentSummary, min: number): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let ok = true;
  const check = (name: string, rate: number | null) => {
    if (rate === null) {
      lines.push(`${name}: not judged, not gated`);
      return;
    }
    const below = rate < min;
    if (below) ok = false;
    lines.push(`${name}: ${(rate * 100).toFixed(1)}% ${below ? "<" : ">="} ${(min * 100).toFixed(1)}%${below ? " FAILED" : ""}`);
  };
  check("tasks", summary.tasks.passRate);
  for (const m of summary.metrics) check(m.name, m.passRate);
  return { ok, lines };
}

/** `evaltrace eval`: 0 when the run passed the gate, 1 under it (or on bad input), 2 when the service refused, 3 when it was unreachable. */
export async function evalCommand(args: string[]): Promise<number> {
  const parsed = parseCommand("eval", args, options, `Usage: evaltrace eval MODULE [options]\n\n${evalUsage}`);
  if (!parsed.ok) return parsed.code;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usageError("eval", `give exactly one MODULE; got ${positionals.length}`);
  const min = values["min-pass-rate"] === undefined ? undefined : Number(values["min-pass-rate"]);
  if (min !== undefined && !(min >= 0 && min <= 1)) return usageError("eval", `--min-pass-rate must be a number from 0 to 1; got "${values["min-pass-rate"]}"`);
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) return usageError("eval", "--concurrency must be a positive integer");
  if (values["dataset-version"] !== undefined && values.dataset === undefined) return usageError("eval", "--dataset-version needs --dataset");
  const file = resolve(positionals[0]!);
  if (!existsSync(file)) return usageError("eval", `no module ${positionals[0]}`);
  const connection = connectionOf("eval", values);
  if (typeof connection === "number") return connection;
  // The module's traces go where the run goes.
  configure({ apiKey: connection.apiKey, baseUrl: connection.baseUrl });
  let mod: EvalModule;
  try {
    mod = await load(file);
  } catch (err) {
    return usageError("eval", `could not load ${positionals[0]}: ${(err as Error).message.split("\n")[0]}`);
  }
  if (typeof mod.task !== "function") return usageError("eval", `${positionals[0]} must export a function task(golden); it exports ${Object.keys(mod).join(", ") || "nothing"}`);
  const metricCollection = values["metric-collection"] ?? mod.metricCollection;
  if (typeof metricCollection !== "string") return usageError("eval", "name the metric collection: --metric-collection C, or export metricCollection from the module");
  const dataset = values.dataset === undefined ? undefined : values["dataset-version"] === undefined ? values.dataset : { alias: values.dataset, version: values["dataset-version"] };
  if (dataset === undefined && mod.goldens === undefined) return usageError("eval", `${positionals[0]} exports no goldens: export goldens, or pass --dataset ALIAS`);
  const client = clientOf(connection);
  try {
    const { summary } = await experiment(
      {
        identifier: values.identifier ?? (typeof mod.identifier === "string" ? mod.identifier : file.split(/[\\/]/).pop()!.replace(/\.[cm]?[jt]s$/, "")),
        ...(dataset === undefined ? { goldens: mod.goldens } : { dataset }),
        task: mod.task,
        metricCollection,
        ...(mod.hyperparameters === undefined ? {} : { hyperparameters: mod.hyperparameters }),
        ...(concurrency === undefined ? {} : { concurrency }),
        client,
      } as ExperimentOptions<ExperimentGolden>,
      false,
    );
    process.stdout.write(formatSummary(summary));
    if (min === undefined) return EXIT.ok;
    const verdict = gate(summary, min);
    process.stdout.write(`${verdict.lines.join("\n")}\n`);
    if (verdict.ok) return EXIT.ok;
    process.stderr.write(`evaltrace eval: a pass rate is under --min-pass-rate ${min}\n`);
    return EXIT.belowThreshold;
  } catch (err) {
    if (err instanceof ValidationError || (err instanceof EvaltraceError && err.code === "configuration")) return usageError("eval", err.message);
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
