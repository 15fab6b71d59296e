import { isPlainObject, SchemaError } from "./schema.js";

// The read side of datasets, which the spec does not show: `GET /v1/datasets/:alias` as the
// vendor's own SDKs call it (deepeval `EvaluationDataset.pull`, Python and TypeScript). Query
// `finalized` ("true" | "false", the vendor's default true), `version` (a dataset version) and
// `public` (sent by the Python SDK; one project here, so it changes nothing). The answer's `data`
// is `{id, version, goldens}` for a single-turn dataset and `{id, version, conversationalGoldens}`
// for a multi-turn one. The emulator applies these rules; the client checks its query with them.

/** The query parameters of a dataset pull, and the values each takes. */
export const datasetPullQuery = {
  version: "a dotted numeric string such as 1 or 1.2.0",
  finalized: "true or false",
  public: "true or false",
} as const;

const VERSION = /^\d+(\.\d+)*$/;

/** The checked query of a pull: which version (undefined: the latest, else unversioned) and whether only finalized goldens. */
export interface DatasetPullQuery {
  version?: string;
  finalized: boolean;
}

/**
 * Checks the query of `GET /v1/datasets/:alias`. Unknown parameters are returned in `unknown`
 * (the emulator rejects them in strict mode and ignores them otherwise).
 */
export function checkDatasetPullQuery(query: URLSearchParams): DatasetPullQuery & { unknown: string[] } {
  const unknown: string[] = [];
  for (const key of new Set(query.keys())) {
    if (!Object.hasOwn(datasetPullQuery, key)) unknown.push(key);
    else if (query.getAll(key).length > 1) throw new SchemaError(`query.${key} is given more than once`);
  }
  const version = query.get("version") ?? undefined;
  if (version !== undefined && !VERSION.test(version)) throw new SchemaError(`query.version must be ${datasetPullQuery.version}; got "${version.slice(0, 40)}"`);
  for (const flag of ["finalized", "public"] as const) {
    const v = query.get(flag);
    if (v !== null && v !== "true" && v !== "false") throw new SchemaError(`query.${flag} must be true or false; got "${v.slice(0, 40)}"`);
  }
  return { version, finalized: query.get("finalized") !== "false", unknown };
}

/** The `data` of a pull answer, checked as far as a client needs: goldens of one kind. */
export interface DatasetPullData {
  id: string;
  version: string | null;
  multiTurn: boolean;
  goldens: Record<string, unknown>[];
}

/**
 * Reads the `data` of a pull answer. Single-turn when `goldens` holds goldens, multi-turn when
 * `conversationalGoldens` does (the vendor SDKs: multi-turn when `goldens` is absent). Unknown
 * fields are kept: the live service sends more than the spec names (ids, names).
 */
export function readDatasetPull(data: unknown): DatasetPullData {
  if (!isPlainObject(data)) throw new SchemaError("data must be an object");
  if (typeof data.id !== "string") throw new SchemaError("data.id must be a string");
  const version = data.version === undefined || data.version === null ? null : String(data.version);
  const single = data.goldens;
  const multi = data.conversationalGoldens;
  const multiTurn = !(Array.isArray(single) && single.length > 0) && Array.isArray(multi);
  const list = multiTurn ? multi : (single ?? []);
  const key = multiTurn ? "conversationalGoldens" : "goldens";
  if (!Array.isArray(list)) throw new SchemaError(`data.${key} must be a list`);
  list.forEach((g, i) => {
    if (!isPlainObject(g)) throw new SchemaError(`data.${key}[${i}] must be an object`);
    const field = multiTurn ? "scenario" : "input";
    if (typeof g[field] !== "string") throw new SchemaError(`data.${key}[${i}].${field} must be a string`);
  });
  return { id: data.id, version, multiTurn, goldens: list as Record<string, unknown>[] };
}
