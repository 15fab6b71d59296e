import type { IncomingMessage } from "node:http";
import type { Handler, Judge, JudgeLater, Plan, RouteContext } from "./context.js";
import { bodyDigestSliced, IDEMPOTENCY_HEADER, type IdempotencyStore, isRemembered, REPLAYED_HEADER, readIdempotencyKey } from "./idempotency.js";
import { decodeSegment, readJson } from "./json-body.js";
import { authenticate } from "./keys.js";
import { errorOutcome, jsonOutcome, type Outcome } from "./outcome.js";
import { findRoute } from "./routes/table.js";
import type { Commits } from "./store/commit.js";
import { noChanges } from "./store/journal.js";
import type { IdempotencyRecord, State } from "./store/store.js";
import type { WriteLock } from "./store/write-lock.js";
import { TimeSlicer } from "./time-slicer.js";

/** The other spelling of a header name (`SERVICE_API_KEY` <-> `SERVICE-API-KEY`), lower case. */
function otherSpelling(header: string): string {
  const h = header.toLowerCase();
  return h.includes("_") ? h.replaceAll("_", "-") : h.replaceAll("-", "_");
}

/** The presented API key: the configured `header`, or (unless `strict`) its other spelling, noted. */
export function presentedKey(req: IncomingMessage, header: string, strict: boolean, note: (line: string) => void): string | undefined {
  const exact = req.headers[header.toLowerCase()];
  if (exact !== undefined) return String(exact);
  if (strict) return undefined;
  const other = req.headers[otherSpelling(header)];
  if (other === undefined) return undefined;
  note(`accepted the API key header spelled ${otherSpelling(header).toUpperCase()} (strict mode takes only ${header})`);
  return String(other);
}

/** Runs a route handler; a rejection becomes its error answer rather than a throw. */
async function runHandler(handler: Handler, ctx: RouteContext, path: string): Promise<Outcome> {
  try {
    const result = await handler(ctx);
    return jsonOutcome(result.status ?? 200, result.body, true);
  } catch (err) {
    return errorOutcome(err, path);
  }
}

/** The remembered answer, marked as a replay. */
function replayOf(record: IdempotencyRecord): Outcome {
  return { status: record.status, text: record.body, headers: { ...record.headers, [REPLAYED_HEADER]: "true" }, applied: false };
}

/** What {@link Api} needs. */
export interface ApiOptions {
  state: State;
  clock: () => number;
  plan: Plan;
  region: string;
  /** The server's base URL (known once it listens), for links in answers. */
  baseUrl: () => string;
  judge: Judge | undefined;
  /** The judge endpoint, judging in the background. */
  judging: JudgeLater | undefined;
  strict: boolean;
  /** Name of the authentication header. */
  apiKeyHeader: string;
  /** No data file: keys (and everything else) last as long as the process. */
  inMemory: boolean;
  /** Largest request body, in bytes. */
  maxBodyBytes: number;
  /** The answers remembered for writes sent with an `Idempotency-Key`. */
  idempotency: IdempotencyStore;
  /** Runs writes one at a time. */
  lock: WriteLock;
  /** The store's commit step, run under the lock after a write. */
  commits: Commits;
}

/**
 * The API's request pipeline: route, authentication, body, then for a write the idempotency
 * claim, the write lock, the route handler and the commit; a read runs its handler directly.
 */
export class Api {
  constructor(private readonly o: ApiOptions) {}

  /**
   * Answers an API request once, or with the remembered answer to it. Headers of the
   * authentication (a rotation's warning) go into `authHeaders`, which the answer carries even
   * when a later step rejects the request.
   */
  async call(req: IncomingMessage, method: string, path: string, authHeaders: Record<string, string>, note: (line: string) => void, query = new URLSearchParams()): Promise<Outcome> {
    const { state, clock, strict, apiKeyHeader, lock, commits, inMemory } = this.o;
    const r = findRoute(method, path);
    const now = clock();
    const auth = authenticate(state, presentedKey(req, apiKeyHeader, strict, note), r.scope, now, apiKeyHeader, inMemory);
    Object.assign(authHeaders, auth.headers);
    const isWrite = method !== "GET";
    const slicer = new TimeSlicer();
    const key = isWrite ? readIdempotencyKey(req.headers[IDEMPOTENCY_HEADER]) : undefined;
    const body = isWrite ? await readJson(req, this.o.maxBodyBytes, slicer) : {};
    const params = r.pattern.exec(path)?.groups ?? {};
    const decoded = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeSegment(v)]));
    const changed = noChanges();
    let digest: Promise<string> | undefined;
    const wholeDigest = () => (digest ??= bodyDigestSliced(body, slicer));
    const { plan, region, judge, judging } = this.o;
    const ctx = { state, now, plan, region, baseUrl: this.o.baseUrl(), judge, judging, params: decoded, query, body, slicer, strict, note, changed, bodyDigest: wholeDigest };
    const run = () => runHandler(r.handler, ctx, path);
    if (!isWrite) return run();
    const claim = key === undefined ? undefined : await this.o.idempotency.claim({ scope: `${auth.key.scope}:${auth.key.id}`, key, method, path, bodyDigest: await wholeDigest(), now });
    if (claim?.kind === "replay") return replayOf(claim.record);
    // Writes run one at a time (each yields the event loop to reads while it works).
    return lock.run(async () => {
      const before = commits.mark();
      let outcome: Outcome | undefined;
      try {
        outcome = await run();
      } finally {
        // Remembered before the journal is written: the effect and its answer reach the file together.
        claim?.finish(outcome && { status: outcome.status, body: outcome.text, headers: outcome.headers });
      }
      const remembered = claim !== undefined && isRemembered(outcome.status);
      if (outcome.applied || remembered) await commits.commit(changed, before, slicer, outcome.applied);
      return outcome;
    });
  }
}
