import type { Client } from "../client/client.js";
import { ValidationError } from "../client/errors.js";
import { checkDatasetPush } from "../protocol/requests.js";
import { isPlainObject, SchemaError } from "../protocol/schema.js";
import type { MetricCollection } from "../protocol/types.js";
import type { ExperimentGolden, ExperimentOptions, Scorer } from "./types.js";

/** The options of a run, checked, with their defaults. */
export interface CheckedOptions {
  identifier: string;
  metricCollection: string;
  hyperparameters: Record<string, string | number | boolean | null> | undefined;
  concurrency: number;
  chunkSize: number;
  trials: number;
  scorers: Scorer[];
}

const known = new Set(["identifier", "goldens", "dataset", "task", "metricCollection", "hyperparameters", "concurrency", "signal", "client", "chunkSize", "output", "scorers", "trials"]);

const bad = (message: string) => new ValidationError(message);

function positiveInteger(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || (v as number) < 1) throw bad(`options.${name} must be a positive integer; got ${JSON.stringify(v)}`);
  return v as number;
}

/** Checks what needs no service: every option's type, and exactly one of goldens or dataset. */
export function checkOptions(options: ExperimentOptions<ExperimentGolden>): CheckedOptions {
  if (!isPlainObject(options)) throw bad("options must be an object: runExperiment({ goldens | dataset, task, metricCollection })");
  for (const key of Object.keys(options)) if (!known.has(key)) throw bad(`options.${key} is not an option of runExperiment; it takes ${[...known].join(", ")}`);
  const o = options as Record<string, unknown>;
  if (typeof o.task !== "function") throw bad(`options.task must be a function (golden) => output; got ${o.task === null ? "null" : typeof o.task}`);
  if (typeof o.metricCollection !== "string" || o.metricCollection.trim() === "") throw bad("options.metricCollection must be the name of a metric collection");
  if (o.identifier !== undefined && (typeof o.identifier !== "string" || o.identifier.trim() === "")) throw bad("options.identifier must be a non-empty string");
  if ((o.goldens === undefined) === (o.dataset === undefined)) throw bad("give exactly one of options.goldens (a list) and options.dataset (an alias or { alias, version })");
  if (o.goldens !== undefined && (!Array.isArray(o.goldens) || o.goldens.length === 0)) throw bad("options.goldens must be a non-empty list of goldens");
  if (o.dataset !== undefined) checkDatasetRef(o.dataset);
  if (o.hyperparameters !== undefined) {
    if (!isPlainObject(o.hyperparameters)) throw bad("options.hyperparameters must be an object of strings, numbers, booleans or null");
    for (const [k, v] of Object.entries(o.hyperparameters)) {
      if (v !== null && !["string", "number", "boolean"].includes(typeof v)) throw bad(`options.hyperparameters.${k} must be a string, number, boolean or null; got ${typeof v}`);
    }
  }
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) throw bad("options.signal must be an AbortSignal");
  if (o.output !== undefined && o.output !== null && typeof (o.output as { write?: unknown }).write !== "function") throw bad("options.output must be a stream (with write) or null");
  if (o.scorers !== undefined && (!Array.isArray(o.scorers) || o.scorers.some((f) => typeof f !== "function"))) {
    throw bad("options.scorers must be a list of functions ({ input, actualOutput, ..., trace }) => ({ name, score, reason?, threshold? })");
  }
  return {
    identifier: (o.identifier as string | undefined) ?? "experiment",
    metricCollection: o.metricCollection,
    hyperparameters: o.hyperparameters as CheckedOptions["hyperparameters"],
    concurrency: positiveInteger(o.concurrency, "concurrency", 5),
    chunkSize: positiveInteger(o.chunkSize, "chunkSize", 500),
    trials: positiveInteger(o.trials, "trials", 1),
    scorers: (o.scorers as Scorer[] | undefined) ?? [],
  };
}

function checkDatasetRef(ref: unknown): void {
  if (typeof ref === "string" && ref.trim() !== "") return;
  if (isPlainObject(ref) && typeof ref.alias === "string" && ref.alias.trim() !== "" && (ref.version === undefined || typeof ref.version === "string")) {
    const extra = Object.keys(ref).find((k) => k !== "alias" && k !== "version");
    if (extra === undefined) return;
    throw bad(`options.dataset.${extra}: a dataset is { alias, version }`);
  }
  throw bad(`options.dataset must be an alias or { alias, version }; got ${JSON.stringify(ref)}`);
}

/**
 * The goldens of the run and their kind. Given goldens are checked as a dataset push checks
 * them (so an error names `options.goldens[i]`); pulled ones only for their kind, since the
 * service sends fields of its own.
 */
export async function resolveGoldens(options: ExperimentOptions<ExperimentGolden>, client: Client): Promise<{ goldens: ExperimentGolden[]; multiTurn: boolean }> {
  if (options.goldens !== undefined) {
    try {
      const multiTurn = checkDatasetPush({ alias: "goldens", goldens: options.goldens });
      return { goldens: options.goldens, multiTurn };
    } catch (err) {
      if (err instanceof SchemaError) throw bad(err.message.replace(/^body\.goldens/, "options.goldens").replace(/body\.goldens/g, "options.goldens"));
      throw err;
    }
  }
  const ref = options.dataset;
  const { alias, version } = typeof ref === "string" ? { alias: ref, version: undefined } : ref;
  const pulled = await client.datasets.pull(alias, version === undefined ? {} : { version });
  if (pulled.goldens.length === 0) throw bad(`options.dataset: dataset ${alias}${pulled.version ? ` version ${pulled.version}` : ""} has no finalized goldens`);
  return { goldens: pulled.goldens, multiTurn: pulled.multiTurn };
}

/**
 * The collection the run posts to, looked up before any task runs: an unknown name, or one of
 * the other kind than the goldens, is an error now rather than after the whole run.
 */
export async function findCollection(client: Client, name: string, multiTurn: boolean): Promise<MetricCollection> {
  const all = await client.metricCollections.list();
  const found = all.find((c) => c.name === name && c.multiTurn === multiTurn);
  if (found) return found;
  const kind = (m: boolean) => (m ? "multi-turn" : "single-turn");
  if (all.some((c) => c.name === name)) {
    throw bad(`options.metricCollection: collection ${name} is ${kind(!multiTurn)}; these goldens are ${kind(multiTurn)} (make a ${kind(multiTurn)} collection of that name)`);
  }
  throw bad(`options.metricCollection: no metric collection named ${name}; create it with client.metricCollections.create({ name, multiTurn: ${multiTurn}, metricSettings })`);
}
