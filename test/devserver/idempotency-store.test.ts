import { describe, expect, it } from "vitest";
import {
  bodyDigest,
  canonicalJson,
  type Claim,
  DEFAULT_IDEMPOTENCY_LIMITS,
  type IdempotentRequest,
  IdempotencyStore,
  readIdempotencyKey,
} from "../../src/devserver/idempotency.js";
import type { IdempotencyRecord } from "../../src/devserver/store.js";

const request = (key: string, extra: Partial<IdempotentRequest> = {}): IdempotentRequest => ({
  scope: "project:1",
  key,
  method: "POST",
  path: "/v1/metrics",
  bodyDigest: bodyDigest({ a: 1 }),
  now: 0,
  ...extra,
});
const answer = (status: number) => ({ status, body: `{"status":${status}}`, headers: {} });

async function first(store: IdempotencyStore, req: IdempotentRequest): Promise<Extract<Claim, { kind: "first" }>> {
  const claim = await store.claim(req);
  if (claim.kind !== "first") throw new Error(`expected a first request, got a replay of ${claim.record.key}`);
  return claim;
}

describe("IdempotencyStore", () => {
  it("remembers 2xx and 4xx answers but not 408, 429 or 5xx, which clients retry", async () => {
    const store = new IdempotencyStore([], DEFAULT_IDEMPOTENCY_LIMITS);
    for (const status of [200, 404, 422, 408, 429, 500, 503]) (await first(store, request(`k${status}`))).finish(answer(status));
    for (const status of [200, 404, 422]) expect((await store.claim(request(`k${status}`))).kind, String(status)).toBe("replay");
    for (const status of [408, 429, 500, 503]) expect((await store.claim(request(`k${status}`))).kind, String(status)).toBe("first");
  });

  it("lets the next request with the key through when the first ended without an answer", async () => {
    const store = new IdempotencyStore([], DEFAULT_IDEMPOTENCY_LIMITS);
    const claim = await first(store, request("k"));
    const waiting = store.claim(request("k"));
    claim.finish(undefined);
    claim.finish(answer(200)); // a second finish changes nothing
    expect((await waiting).kind).toBe("first");
    expect(store.size).toBe(0);
  });

  it("defaults to 24 hours and 10,000 answers, forgetting the oldest first", async () => {
    expect(DEFAULT_IDEMPOTENCY_LIMITS).toEqual({ ttlMillis: 86_400_000, maxEntries: 10_000 });
    const records: IdempotencyRecord[] = [];
    const store = new IdempotencyStore(records, DEFAULT_IDEMPOTENCY_LIMITS);
    for (let i = 0; i <= 10_000; i++) (await first(store, request(`k${i}`))).finish(answer(200));
    expect(store.size).toBe(10_000);
    expect(records[0]!.key).toBe("k1");
    expect((await store.claim(request("k0"))).kind).toBe("first");
    expect((await store.claim(request("k10000"))).kind).toBe("replay");
  });

  it("drops duplicate records of a hand-edited file, keeping the newest", async () => {
    const rec = (createdAt: number): IdempotencyRecord => ({ ...request("k"), createdAt, ...answer(200 + createdAt) });
    const records = [rec(1), rec(2)];
    const store = new IdempotencyStore(records, DEFAULT_IDEMPOTENCY_LIMITS);
    expect(records).toEqual([rec(2)]);
    const claim = await store.claim(request("k"));
    expect(claim.kind === "replay" && claim.record.status).toBe(202);
  });
});

describe("canonicalJson and bodyDigest", () => {
  it("sorts keys at every level, keeps array order, and reads __proto__ as a plain key", () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: "x" })).toBe('{"a":"x","b":[2,{"c":null,"d":1}]}');
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(bodyDigest(parsed)).not.toBe(bodyDigest({ a: 1 }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("readIdempotencyKey", () => {
  it("passes a UUID, unquotes a structured-field string, and rejects the rest with 400", () => {
    expect(readIdempotencyKey(undefined)).toBeUndefined();
    expect(readIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324")).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(readIdempotencyKey('"abc"')).toBe("abc");
    expect(() => readIdempotencyKey('""')).toThrow("empty");
    expect(() => readIdempotencyKey(["a", "b"])).toThrow("one key per request");
    expect(() => readIdempotencyKey("é")).toThrow("visible ASCII");
    expect(() => readIdempotencyKey("x".repeat(256))).toThrow(expect.objectContaining({ status: 400 }));
  });
});
