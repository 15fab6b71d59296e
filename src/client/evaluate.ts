import { checkEvaluate, checkOfflineEvaluation } from "../protocol/requests.js";
import type { EvaluateInput, OfflineEvaluationInput } from "../protocol/types.js";
import { type ClientHttp, enc, str } from "./client-http.js";

/** Evaluations: test runs (spec 4.5) and direct offline evaluations (spec 4.7). */
export class EvaluateApi {
  constructor(private readonly http: ClientHttp) {}

  /** Runs a collection over test cases of one kind; returns the test run id. */
  async run(input: EvaluateInput): Promise<{ testRunId: string }> {
    const res = await this.http.call("POST", "/v1/evaluate", input, checkEvaluate);
    return { testRunId: str(res.data?.id, "data.id") };
  }

  /**
   * Evaluates a thread now with a multi-turn collection. Traces recorded with `observe()` are
   * better evaluated with `evaluateThread()`, which waits until they were delivered.
   */
  async thread(threadId: string, input: OfflineEvaluationInput & { chatbotRole?: string }): Promise<void> {
    await this.offline("thread", `/v1/evaluate/threads/${enc(threadId)}`, input);
  }

  /** Evaluates a delivered trace now with a single-turn collection. */
  async trace(uuid: string, input: OfflineEvaluationInput): Promise<void> {
    await this.offline("trace", `/v1/evaluate/traces/${enc(uuid)}`, input);
  }

  /** Evaluates a delivered span now with a single-turn collection. */
  async span(uuid: string, input: OfflineEvaluationInput): Promise<void> {
    await this.offline("span", `/v1/evaluate/spans/${enc(uuid)}`, input);
  }

  private async offline(target: "thread" | "trace" | "span", path: string, input: OfflineEvaluationInput & { chatbotRole?: string }) {
    const { metricCollection, ...rest } = input;
    // The spec's key is `metricCollections`; the live service reads `metricCollection`: send both.
    const body = { metricCollections: metricCollection, metricCollection, ...rest };
    await this.http.call("POST", path, body, (b) => checkOfflineEvaluation(b, target));
  }
}
