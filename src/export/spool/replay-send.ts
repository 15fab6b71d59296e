import { isRetryableStatus } from "../../http/retry.js";
import type { Requests } from "../requests.js";
import type { ReplaySend } from "./replay.js";

/**
 * Replays a spooled body as `POST /v1/traces` in one of the exporter's request slots, with the
 * `Idempotency-Key` it was first sent with and no retries (the replayer tries again later): no
 * answer, 408, 429 or 5xx is "retry"; any other failure is a refusal for good.
 */
export function replaySender(requests: Requests): ReplaySend {
  return async (body, key) => {
    const outcome = await requests.add(() => requests.send("POST", "/v1/traces", body, undefined, { idempotencyKey: key, maxRetries: 0 }));
    if (outcome.ok) return { kind: "ok" };
    if (outcome.status === undefined || isRetryableStatus(outcome.status)) return { kind: "retry", message: outcome.message };
    return { kind: "refused", message: outcome.message };
  };
}
