import { checkDatasetPullQuery, readDatasetPull } from "../protocol/dataset-pull.js";
import { checkDatasetPush } from "../protocol/requests.js";
import { SchemaError } from "../protocol/schema.js";
import type { DatasetPullOptions, DatasetPush, DatasetPushOptions, DatasetPushResult, PulledDataset } from "../protocol/types.js";
import { type Body, type ClientHttp, enc, str } from "./client-http.js";
import { ServiceError, ValidationError } from "./errors.js";

/** Dataset pushes (spec 4.9) and pulls (`GET /v1/datasets/:alias`, the vendor SDKs' read). */
export class DatasetsApi {
  constructor(private readonly http: ClientHttp) {}

  /**
   * Pushes goldens to a dataset in requests of `chunkSize`, reporting progress. All goldens are
   * checked before the first request. If a request fails, the error says how many were pushed.
   */
  async push(push: DatasetPush, options: DatasetPushOptions = {}): Promise<DatasetPushResult> {
    const chunkSize = options.chunkSize ?? 500;
    if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new TypeError(`evaltrace: chunkSize must be a positive integer; got ${chunkSize}`);
    try {
      checkDatasetPush(push);
    } catch (err) {
      if (err instanceof SchemaError) throw new ValidationError(err.message);
      throw err;
    }
    const goldens = push.goldens as unknown[];
    let pushed = 0;
    let requests = 0;
    let last: Body = {};
    while (pushed < goldens.length) {
      const chunk = goldens.slice(pushed, pushed + chunkSize);
      try {
        last = await this.http.call("POST", "/v2/datasets", { ...push, goldens: chunk });
      } catch (err) {
        if (err instanceof ServiceError && pushed > 0) {
          throw new ServiceError({ status: err.status, method: err.method, path: err.path, body: err.body, message: `${err.message} (after ${pushed} of ${goldens.length} goldens were pushed)` });
        }
        throw err;
      }
      pushed += chunk.length;
      requests++;
      options.onProgress?.({ pushed, total: goldens.length });
    }
    return { datasetId: str(last.data?.id, "data.id"), link: last.link ?? "", deprecated: last.deprecated === true, pushed, requests };
  }

  /**
   * Pulls a dataset's goldens: of `version`, else of the latest version, else the unversioned
   * ones; only finalized goldens unless `finalized: false`. An unknown alias or version is the
   * service's 404, as a {@link ServiceError}.
   */
  async pull(alias: string, options: DatasetPullOptions = {}): Promise<PulledDataset> {
    if (typeof alias !== "string" || alias.trim().length === 0) throw new ValidationError(`alias must be a non-empty string; got ${JSON.stringify(alias)}`);
    if (options === null || typeof options !== "object") throw new ValidationError("options must be an object such as { version: \"1\" }");
    const unknown = Object.keys(options).filter((k) => k !== "version" && k !== "finalized");
    if (unknown.length > 0) throw new ValidationError(`options.${unknown[0]}: a pull takes version and finalized`);
    if (options.finalized !== undefined && typeof options.finalized !== "boolean") throw new ValidationError("options.finalized must be a boolean");
    const query = new URLSearchParams({ finalized: String(options.finalized ?? true) });
    if (options.version !== undefined) query.set("version", String(options.version));
    try {
      checkDatasetPullQuery(query);
    } catch (err) {
      if (err instanceof SchemaError) throw new ValidationError(err.message.replace(/^query\./, "options."));
      throw err;
    }
    const path = `/v1/datasets/${enc(alias)}`;
    const res = await this.http.call("GET", `${path}?${query}`);
    let data: ReturnType<typeof readDatasetPull>;
    try {
      data = readDatasetPull(res.data);
    } catch (err) {
      throw new ServiceError({ method: "GET", path, message: `unexpected answer: ${(err as Error).message}` });
    }
    return { alias, datasetId: data.id, version: data.version, multiTurn: data.multiTurn, goldens: data.goldens } as PulledDataset;
  }
}
