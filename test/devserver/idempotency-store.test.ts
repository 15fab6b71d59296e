import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bodyDigest,
  bodyDigestSliced,
  canonicalJson,
  type Claim,
  DEFAULT_IDEMPOTENCY_LIMITS,
  type IdempotentRequest,
  IdempotencyStore,
  readIdempotencyKey,
} from "../../src/devserver/idempotency.js";
import type { IdempotencyRecord } from "../../src/devserver/store/store.js";
import { TimeSlicer } from "../../src/devserver/time-slicer.js";

/** Canonical JSON by its definition (the recursive form the emulator wrote before): what the digests are of. */
function canonicalByDefinition(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalByDefinition).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalByDefinition(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

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

  it("writes what the definition writes, and the sliced digest equals the whole one, for any JSON value", async () => {
    // Slices of 0 ms: the sliced writer stops and goes on after every member it can.
    const slicer = new TimeSlicer(0);
    const values = fc.oneof(
      fc.jsonValue(),
      fc.array(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }), { minLength: 30, maxLength: 80 }),
      // Objects of one key list over and over (as a span list), and objects of over 64 keys.
      fc.array(fc.record({ uuid: fc.string(), name: fc.jsonValue(), at: fc.integer(), b: fc.constantFrom(null, true, "x") }), { maxLength: 80 }),
      fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.jsonValue()), { minKeys: 65, maxKeys: 200 }),
      fc.constantFrom<unknown>([1, undefined, 2], { a: undefined, b: () => 1 }, new Array(3).concat([1]) /* holes at 0-2 */, JSON.parse('{"__proto__":[1],"10":1,"9":2,"b":{"a":[]}}')),
    );
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        const text = canonicalByDefinition(value);
        expect(canonicalJson(value)).toBe(text);
        const digest = createHash("sha256").update(text).digest("hex");
        expect(bodyDigest(value)).toBe(digest);
        expect(await bodyDigestSliced(value, slicer)).toBe(digest);
      }),
      { numRuns: 300 },
    );
  });

  it("writes a value nested far deeper than the call stack allows recursion", async () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(canonicalJson(deep)).toBe(`${'{"a":'.repeat(100_000)}[]${"}".repeat(100_000)}`);
    expect(await bodyDigestSliced(deep, new TimeSlicer())).toBe(bodyDigest(deep));
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
