import { checkBatchMetrics, checkMetricCreate, checkMetricUpdate } from "../protocol/requests.js";
import { SchemaError } from "../protocol/schema.js";
import type { Metric, MetricInput, MetricUpdate } from "../protocol/types.js";
import { type ClientHttp, enc, str } from "./client-http.js";

/** Metrics (spec 4.3): custom metrics, and the default ones in `list()`. */
export class MetricsApi {
  constructor(private readonly http: ClientHttp) {}

  /** Creates one custom metric. */
  async create(metric: MetricInput): Promise<{ id: string }> {
    const res = await this.http.call("POST", "/v1/metrics", metric, checkMetricCreate);
    return { id: str(res.data?.id, "data.id") };
  }

  /** Creates several metrics in one request (`{metrics: [...]}`), all or none. */
  async createMany(metrics: MetricInput[]): Promise<{ ids: string[] }> {
    const res = await this.http.call("POST", "/v1/metrics", { metrics }, checkMetricCreate);
    return { ids: (res.data?.ids as string[]) ?? [] };
  }

  /** Creates metrics through `POST /v1/batch-metrics`. */
  async batchCreate(metrics: MetricInput[]): Promise<{ ids: string[] }> {
    const res = await this.http.call("POST", "/v1/batch-metrics", { metrics }, checkBatchMetrics);
    return { ids: (res.data?.ids as string[]) ?? [] };
  }

  /** Changes fields of a custom metric; criteria/evaluationSteps and evaluationParams must stay populated. */
  async update(id: string, fields: MetricUpdate): Promise<void> {
    await this.http.call("PUT", `/v1/metrics/${enc(id)}`, fields, (b) => {
      if (b && typeof b === "object" && "multiTurn" in b) throw new SchemaError("body.multiTurn: a metric's kind cannot change after creation (spec 7 rule 2)");
      checkMetricUpdate(b);
    });
  }

  /** Every metric of the project, default ones included. */
  async list(): Promise<Metric[]> {
    const res = await this.http.call("GET", "/v1/metrics");
    return (res.data?.metrics as Metric[]) ?? [];
  }
}
