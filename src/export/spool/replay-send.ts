import { isRetryableStatus } from "../../http/retry.js";
import type { TransportOutcome } from "../../http/transport.js";
import { appendRequest } from "../append-to-stored.js";
import type { Requests } from "../requests.js";
import type { ReplayOutcome, ReplaySend } from "./replay.js";

/**
 * Replays a spooled body as `POST /v1/traces` in one of the exporter's request slots, with the
 * `Idempotency-Key` it was first sent with and no retries (the replayer tries again later): no
 * answer, 408, 429 or 5xx is "retry"; any other failure is a refusal for good. A 409 ("already
 * exists") refuses none of the batch: one of its traces is stored already (a part of one upstream
 * trace sent before, or the batch's own first try whose answer was lost), so each trace is sent
 * on its own and, where the service has it, its spans appended with `PUT` (append-to-stored.ts),
 * as the batch sender does in memory.
 */
export function replaySender(requests: Requests): ReplaySend {
  return async (body, key) => {
    const outcome = await requests.add(() => requests.send("POST", "/v1/traces", body, undefined, { idempotencyKey: key, maxRetries: 0 }));
    if (outcome.status === 409) return replayEach(requests, body);
    return verdict(outcome);
  };
}

function verdict(outcome: TransportOutcome): ReplayOutcome {
  if (outcome.ok) return { kind: "ok" };
  if (outcome.status === undefined || isRetryableStatus(outcome.status)) return { kind: "retry", message: outcome.message };
  return { kind: "refused", message: outcome.message };
}

/**
 * The batch's traces one by one (single-trace form); a 409 answered by the `PUT` that appends the
 * trace's spans, itself answered 409 when they are stored already (this replay's earlier try).
 * The batch is "ok" when every trace is stored, "retry" when one could not be sent now (those
 * stored meanwhile answer 409 next time), else refused with how many were.
 */
async function replayEach(requests: Requests, body: Uint8Array): Promise<ReplayOutcome> {
  let texts: string[];
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { traces?: unknown[] };
    texts = (Array.isArray(parsed.traces) ? parsed.traces : [parsed]).map((t) => JSON.stringify(t));
  } catch (error) {
    return { kind: "refused", message: `409 to a spooled batch that could not be read: ${String(error)}` };
  }
  const refused: string[] = [];
  for (const text of texts) {
    const outcome = await replayOne(requests, text);
    // The service not answering now: the rest waits for the next replay too.
    if (outcome.kind === "retry") return outcome;
    if (outcome.kind === "refused") refused.push(outcome.message);
  }
  if (refused.length === 0) return { kind: "ok" };
  return { kind: "refused", traces: refused.length, message: `${refused.length} of ${texts.length} traces refused after a 409 to their batch: ${refused[0]}` };
}

/** One trace of a batch answered 409, in the single-trace form; a 409 to it answered by appending its spans. */
async function replayOne(requests: Requests, text: string): Promise<ReplayOutcome> {
  const posted = await requests.add(() => requests.send("POST", "/v1/traces", text, undefined, { maxRetries: 0 }));
  if (posted.status !== 409) return verdict(posted);
  const append = appendRequest(text);
  const put = await requests.add(() => requests.send("PUT", append.path, append.body, undefined, { maxRetries: 0 }));
  return put.status === 409 ? { kind: "ok" } : verdict(put);
}
