import { checkCollectionCreate, checkCollectionUpdate } from "../protocol/requests.js";
import type { MetricCollection, MetricCollectionInput, MetricSettingInput } from "../protocol/types.js";
import { type ClientHttp, enc, str } from "./client-http.js";
import { ServiceError } from "./errors.js";

/** Metric collections (spec 4.4). */
export class MetricCollectionsApi {
  constructor(private readonly http: ClientHttp) {}

  /**
   * Creates a collection. The service answers without an id when `metricSettings` are given;
   * the client then looks the id up, so you always get one.
   */
  async create(collection: MetricCollectionInput): Promise<{ id: string }> {
    const res = await this.http.call("POST", "/v1/metric-collections", collection, checkCollectionCreate);
    if (typeof res.data?.id === "string") return { id: res.data.id };
    const found = (await this.list()).find((c) => c.name === collection.name && c.multiTurn === collection.multiTurn);
    return { id: str(found?.id, `id of collection ${collection.name}`) };
  }

  /** Renames a collection and/or replaces its metric settings (its kind cannot change). */
  async update(id: string, fields: { name?: string; metricSettings?: MetricSettingInput[] }): Promise<void> {
    await this.http.call("PUT", `/v1/metric-collections/${enc(id)}`, fields, checkCollectionUpdate);
  }

  /** Every collection, both kinds. */
  async list(): Promise<MetricCollection[]> {
    const res = await this.http.call("GET", "/v1/metric-collections");
    return (res.data?.metricCollections as MetricCollection[]) ?? [];
  }

  /**
   * Adds one metric setting (or replaces the one for that metric), keeping the others: it fetches
   * the current settings first, as spec 4.4 recommends, since an update replaces them all.
   */
  async addMetric(id: string, setting: MetricSettingInput): Promise<void> {
    const current = await this.get(id);
    const others = current.metricSettings.filter((s) => s.metric.name !== setting.metric.name);
    await this.update(id, { metricSettings: [...others, setting] });
  }

  /** Removes one metric setting by metric name, keeping the others. */
  async removeMetric(id: string, metricName: string): Promise<void> {
    const current = await this.get(id);
    await this.update(id, { metricSettings: current.metricSettings.filter((s) => s.metric.name !== metricName) });
  }

  private async get(id: string): Promise<MetricCollection> {
    const found = (await this.list()).find((c) => c.id === id);
    if (!found) throw new ServiceError({ status: 404, method: "GET", path: "/v1/metric-collections", message: `no metric collection with id ${id}` });
    return found;
  }
}
