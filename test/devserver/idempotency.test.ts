import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, type DevServerOptions, startDevServer } from "../../src/devserver/index.js";
import { waitUntil } from "../helpers/manual-clock.js";

const HOUR = 3_600_000;

/** The lines of a `--data` journal, parsed. */
function journalEntries(file: string): { t: string; v: unknown }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { t: string; v: unknown });
}

let now = Date.parse("2026-06-01T00:00:00Z");
let dev: DevServer;
let logLines: string[] = [];

async function start(options: DevServerOptions = {}): Promise<DevServer> {
  dev = await startDevServer({ port: 0, clock: () => now, log: (l) => logLines.push(l), ...options });
  return dev;
}

beforeEach(async () => {
  now = Date.parse("2026-06-01T00:00:00Z");
  logLines = [];
  await start();
});
afterEach(() => dev.close());

interface Reply {
  status: number;
  text: string;
  body: { success?: boolean; error?: string; data?: Record<string, unknown>; deprecated?: boolean };
  replayed: boolean;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  /** The Idempotency-Key header; none when undefined. */
  key?: string;
  /** The API key; the project key by default. */
  apiKey?: string;
}

/** Raw HTTP with an optional Idempotency-Key. */
async function call({ method, path, body, key, apiKey = dev.projectKey }: Call): Promise<Reply> {
  const headers: Record<string, string> = { SERVICE_API_KEY: apiKey };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (key !== undefined) headers["Idempotency-Key"] = key;
  const res = await fetch(dev.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Reply["body"], replayed: res.headers.get("idempotent-replayed") === "true" };
}

const devVersion = async () => ((await (await fetch(`${dev.url}/_dev/version`)).json()) as { version: number }).version;

const T0 = "2026-06-01T10:00:00.000Z";
const T1 = "2026-06-01T10:00:01.000Z";
const span = (uuid: string, extra: Record<string, unknown> = {}) => ({ uuid, name: uuid, startTime: T0, endTime: T1, ...extra });
const trace = (uuid: string, extra: Record<string, unknown> = {}) => ({ uuid, startTime: T0, endTime: T1, baseSpans: [span(`${uuid}-root`)], ...extra });
const metric = (name: string) => ({ name, criteria: "Is it right?", evaluationParams: ["input", "actualOutput"], multiTurn: false });
const testCase = { input: "q", actualOutput: "a" };

/** Collections and a trace (in thread `th`, root span `t-root`) for the routes that need them. */
async function seed(): Promise<void> {
  await call({ method: "POST", path: "/v1/metric-collections", body: { name: "answers", multiTurn: false } });
  await call({ method: "POST", path: "/v1/metric-collections", body: { name: "conversation", multiTurn: true } });
  await call({ method: "POST", path: "/v1/traces", body: trace("t", { threadId: "th", input: "hi", output: "hello", tags: ["a"] }) });
}

const snapshot = (v: unknown) => JSON.stringify(v);
const collectionId = (name: string) => dev.state.collections.find((c) => c.name === name)!.id;
let oldMetric: string;
let target: { id: number; value: string };

/** One mutating route kind: the request, and what of the state it changes. */
interface RouteCase {
  name: string;
  setup?: () => Promise<void>;
  request: () => Call;
  effect: () => string;
}

const cases: RouteCase[] = [
  {
    name: "POST /v1/traces (single, with an online evaluation)",
    setup: seed,
    request: () => ({ method: "POST", path: "/v1/traces", body: trace("new", { metricCollection: "answers", llmTestCase: testCase }) }),
    effect: () => snapshot([Object.keys(dev.state.traces), dev.state.jobs.length]),
  },
  {
    name: "POST /v1/traces (list form)",
    request: () => ({ method: "POST", path: "/v1/traces", body: { traces: [trace("l1"), trace("l2")] } }),
    effect: () => snapshot(Object.keys(dev.state.traces)),
  },
  {
    name: "PUT /v1/traces/:uuid (tags, metadata, spans)",
    setup: seed,
    request: () => ({ method: "PUT", path: "/v1/traces/t", body: { tags: ["b"], metadata: { step: "2" }, output: "done", toolSpans: [span("late", { parentUuid: "t-root" })] } }),
    effect: () => snapshot(dev.state.traces.t),
  },
  {
    name: "POST /v1/evaluate/threads/:id",
    setup: seed,
    request: () => ({ method: "POST", path: "/v1/evaluate/threads/th", body: { metricCollections: "conversation", metricCollection: "conversation" } }),
    effect: () => snapshot(dev.state.jobs),
  },
  {
    name: "POST /v1/evaluate/traces/:uuid",
    setup: seed,
    request: () => ({ method: "POST", path: "/v1/evaluate/traces/t", body: { metricCollections: "answers" } }),
    effect: () => snapshot(dev.state.jobs),
  },
  {
    name: "POST /v1/evaluate/spans/:uuid",
    setup: seed,
    request: () => ({ method: "POST", path: "/v1/evaluate/spans/t-root", body: { metricCollections: "answers" } }),
    effect: () => snapshot(dev.state.jobs),
  },
  {
    name: "POST /v1/metrics",
    request: () => ({ method: "POST", path: "/v1/metrics", body: metric("Politeness") }),
    effect: () => snapshot(dev.state.metrics),
  },
  {
    name: "POST /v1/batch-metrics",
    request: () => ({ method: "POST", path: "/v1/batch-metrics", body: { metrics: [metric("A"), metric("B")] } }),
    effect: () => snapshot(dev.state.metrics),
  },
  {
    name: "PUT /v1/metrics/:id",
    setup: async () => void (oldMetric = (await call({ method: "POST", path: "/v1/metrics", body: metric("Old") })).body.data!.id as string),
    request: () => ({ method: "PUT", path: `/v1/metrics/${oldMetric}`, body: { name: "New" } }),
    effect: () => snapshot(dev.state.metrics),
  },
  {
    name: "POST /v1/metric-collections",
    request: () => ({ method: "POST", path: "/v1/metric-collections", body: { name: "c", multiTurn: false } }),
    effect: () => snapshot(dev.state.collections),
  },
  {
    name: "PUT /v1/metric-collections/:id",
    setup: seed,
    request: () => ({ method: "PUT", path: `/v1/metric-collections/${collectionId("answers")}`, body: { metricSettings: [{ metric: { name: "Bias" }, threshold: 0.7 }] } }),
    effect: () => snapshot(dev.state.collections),
  },
  {
    name: "POST /v1/evaluate",
    setup: seed,
    request: () => ({ method: "POST", path: "/v1/evaluate", body: { metricCollection: "answers", testCases: [testCase] } }),
    effect: () => snapshot(dev.state.testRuns),
  },
  {
    name: "POST /v2/prompts",
    request: () => ({ method: "POST", path: "/v2/prompts", body: { alias: "greet", text: "Hello {name}" } }),
    effect: () => snapshot(dev.state.prompts),
  },
  {
    name: "POST /v2/datasets",
    request: () => ({ method: "POST", path: "/v2/datasets", body: { alias: "qa", goldens: [{ input: "a" }] } }),
    effect: () => snapshot(dev.state.datasets),
  },
  {
    name: "POST /v1/organization/api-keys/:id/rotate",
    setup: async () => void (target = dev.createApiKey({ scope: "org", name: "ci" })),
    request: () => ({ method: "POST", path: `/v1/organization/api-keys/${target.id}/rotate`, body: {}, apiKey: dev.orgKey }),
    effect: () => snapshot(dev.state.keys.find((k) => k.id === target.id)),
  },
  {
    name: "PUT /v2/organization/api-keys/:id",
    setup: async () => void (target = dev.createApiKey({ scope: "org", name: "ci" })),
    request: () => ({ method: "PUT", path: `/v2/organization/api-keys/${target.id}`, body: { valid: false }, apiKey: dev.orgKey }),
    effect: () => snapshot(dev.state.keys.find((k) => k.id === target.id)!.valid),
  },
];

describe("a retry with the same Idempotency-Key is answered as the first and changes nothing", () => {
  it.each(cases)("$name", async (c) => {
    await c.setup?.();
    const before = c.effect();
    const first = await call({ ...c.request(), key: "retry-1" });
    expect(first.status, first.text).toBe(200);
    expect(first.replayed).toBe(false);
    const applied = c.effect();
    expect(applied).not.toBe(before);
    const version = await devVersion();
    const again = await call({ ...c.request(), key: "retry-1" });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.replayed).toBe(true);
    expect(c.effect()).toBe(applied);
    expect(await devVersion()).toBe(version);
  });

  it("appends a retried trace update's tags, metadata and spans once (without a key: tags twice, then 409 for the spans)", async () => {
    await seed();
    const update = { tags: ["b"], metadata: { step: "2" }, toolSpans: [span("late", { parentUuid: "t-root" })] };
    for (let i = 0; i < 3; i++) expect((await call({ method: "PUT", path: "/v1/traces/t", body: update, key: "put-1" })).status).toBe(200);
    expect(dev.state.traces.t!.fields.tags).toEqual(["a", "b"]);
    expect(dev.state.traces.t!.spans.map((s) => s.uuid)).toEqual(["t-root", "late"]);
    const tagsOnly = { tags: ["c"], metadata: { more: "x" } };
    await call({ method: "PUT", path: "/v1/traces/t", body: tagsOnly });
    await call({ method: "PUT", path: "/v1/traces/t", body: tagsOnly });
    expect(dev.state.traces.t!.fields.tags).toEqual(["a", "b", "c", "c"]);
    expect((await call({ method: "PUT", path: "/v1/traces/t", body: update })).status).toBe(409);
  });

  it("does not undo later changes: a replayed update leaves what came after it", async () => {
    await seed();
    const id = collectionId("answers");
    await call({ method: "PUT", path: `/v1/metric-collections/${id}`, body: { name: "B" }, key: "rename-1" });
    await call({ method: "PUT", path: `/v1/metric-collections/${id}`, body: { name: "C" }, key: "rename-2" });
    expect((await call({ method: "PUT", path: `/v1/metric-collections/${id}`, body: { name: "B" }, key: "rename-1" })).replayed).toBe(true);
    expect(dev.state.collections.find((c) => c.id === id)!.name).toBe("C");

    target = dev.createApiKey({ scope: "org" });
    const setValid = (valid: boolean, key: string) => call({ method: "PUT", path: `/v2/organization/api-keys/${target.id}`, body: { valid }, key, apiKey: dev.orgKey });
    await setValid(false, "off-1");
    await setValid(true, "on-1");
    const replay = await setValid(false, "off-1");
    expect(replay.body).toMatchObject({ success: true, data: { valid: false }, deprecated: false });
    expect(dev.state.keys.find((k) => k.id === target.id)!.valid).toBe(true);
  });

  it("repeats a rotation's new value, which authenticates; the key was rotated once", async () => {
    target = dev.createApiKey({ scope: "org" });
    const rotate = () => call({ method: "POST", path: `/v1/organization/api-keys/${target.id}/rotate`, body: {}, key: "rot-1", apiKey: dev.orgKey });
    const first = await rotate();
    const again = await rotate();
    const value = first.body.data!.apiKey as { value: string };
    expect((again.body.data!.apiKey as { value: string }).value).toBe(value.value);
    expect(dev.state.keys.find((k) => k.id === target.id)!.retired).toHaveLength(1);
    expect((await call({ method: "PUT", path: `/v2/organization/api-keys/${dev.orgKeyId}`, body: { valid: true }, apiKey: value.value })).status).toBe(200);
  });

  it("takes a body with its keys in another order as the same request", async () => {
    await call({ method: "POST", path: "/v1/metrics", body: { name: "M", multiTurn: false, criteria: "c", evaluationParams: ["input"] }, key: "order" });
    const again = await call({ method: "POST", path: "/v1/metrics", body: { evaluationParams: ["input"], criteria: "c", multiTurn: false, name: "M" }, key: "order" });
    expect(again).toMatchObject({ status: 200, replayed: true });
  });

  it("remembers 4xx answers: a retry of a 404 is still 404 after the trace appeared", async () => {
    const first = await call({ method: "PUT", path: "/v1/traces/later", body: { tags: ["x"] }, key: "early" });
    expect(first.status).toBe(404);
    await call({ method: "POST", path: "/v1/traces", body: trace("later") });
    const again = await call({ method: "PUT", path: "/v1/traces/later", body: { tags: ["x"] }, key: "early" });
    expect(again).toMatchObject({ status: 404, text: first.text, replayed: true });
    expect(dev.state.traces.later!.fields.tags).toBeUndefined();
  });

  it("keeps v2 error answers' shape on replay and logs the replay", async () => {
    const body = { alias: "p", text: "t", messages: [{ role: "user", content: "c" }] };
    const first = await call({ method: "POST", path: "/v2/prompts", body, key: "bad-push" });
    const again = await call({ method: "POST", path: "/v2/prompts", body, key: "bad-push" });
    expect(first.body).toMatchObject({ success: false, deprecated: false });
    expect(again).toMatchObject({ status: 400, text: first.text, replayed: true });
    expect(logLines.at(-1)).toMatch(/^POST \/v2\/prompts 400 .* ms \(idempotent replay\)$/);
  });
});

describe("the same key on a different request", () => {
  it("answers 422 for a different body and does not apply it", async () => {
    await seed();
    await call({ method: "PUT", path: "/v1/traces/t", body: { tags: ["b"] }, key: "k" });
    const other = await call({ method: "PUT", path: "/v1/traces/t", body: { tags: ["z"] }, key: "k" });
    expect(other.status).toBe(422);
    expect(other.body.success).toBe(false);
    expect(other.body.error).toContain("with a different body");
    expect(dev.state.traces.t!.fields.tags).toEqual(["a", "b"]);
  });

  it("answers 422 for a different method or path, naming the first", async () => {
    const created = await call({ method: "POST", path: "/v1/metrics", body: metric("M"), key: "k" });
    const r = await call({ method: "PUT", path: `/v1/metrics/${created.body.data!.id as string}`, body: metric("M"), key: "k" });
    expect(r.status).toBe(422);
    expect(r.body.error).toContain("already used for POST /v1/metrics");
    const alias = await call({ method: "POST", path: "/v1/metrics-collections", body: { name: "c", multiTurn: false }, key: "c" });
    expect(alias.status).toBe(200);
    expect((await call({ method: "POST", path: "/v1/metric-collections", body: { name: "c", multiTurn: false }, key: "c" })).status).toBe(422);
    const v2 = await call({ method: "POST", path: "/v2/datasets", body: { alias: "qa", goldens: [{ input: "a" }] }, key: "k" });
    expect(v2).toMatchObject({ status: 422, body: { success: false, deprecated: false } });
  });
});

describe("requests without a key behave as before", () => {
  it("applies a repeated offline evaluation, evaluate run and metric creation each time", async () => {
    await seed();
    for (let i = 0; i < 2; i++) await call({ method: "POST", path: "/v1/evaluate/traces/t", body: { metricCollections: "answers" } });
    expect(dev.state.jobs).toHaveLength(2);
    for (let i = 0; i < 2; i++) await call({ method: "POST", path: "/v1/evaluate", body: { metricCollection: "answers", testCases: [testCase] } });
    expect(dev.state.testRuns).toHaveLength(2);
    await call({ method: "POST", path: "/v1/metrics", body: metric("M") });
    expect((await call({ method: "POST", path: "/v1/metrics", body: metric("M") })).status).toBe(409);
  });

  it("still takes an identical retried POST /v1/traces as a no-op", async () => {
    const first = await call({ method: "POST", path: "/v1/traces", body: trace("x") });
    const again = await call({ method: "POST", path: "/v1/traces", body: trace("x") });
    expect(again).toMatchObject({ status: 200, text: first.text, replayed: false });
    expect(dev.state.idempotency).toEqual([]);
  });

  it("leaves GET requests and the read API alone, key or not", async () => {
    expect((await call({ method: "GET", path: "/v1/metrics", key: "x".repeat(300) })).status).toBe(200);
    const res = await fetch(`${dev.url}/_dev/traces`, { method: "POST", headers: { "Idempotency-Key": "k" } });
    expect(res.status).toBe(405);
    expect(dev.state.idempotency).toEqual([]);
  });
});

describe("key format", () => {
  it("rejects an empty, overlong or non-printable key with 400 before doing anything", async () => {
    const send = (key: string) => call({ method: "POST", path: "/v1/metrics", body: metric("M"), key });
    const long = await send("k".repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error).toContain("256 characters long; at most 255");
    expect((await send("")).body.error).toContain("Idempotency-Key header is empty");
    expect((await send("two keys")).body.error).toContain("visible ASCII");
    expect(dev.state.metrics.some((m) => m.name === "M")).toBe(false);
    expect((await send("k".repeat(255))).status).toBe(200);
  });

  it("takes a structured-field string (\"...\") as the key inside the quotes", async () => {
    await call({ method: "POST", path: "/v1/metrics", body: metric("M"), key: '"abc-1"' });
    expect((await call({ method: "POST", path: "/v1/metrics", body: metric("M"), key: "abc-1" })).replayed).toBe(true);
  });

  it("treats __proto__, constructor and toString as ordinary keys", async () => {
    for (const key of ["__proto__", "constructor", "toString"]) {
      const body = { alias: `p-${key}`, text: "t" };
      const first = await call({ method: "POST", path: "/v2/prompts", body, key });
      expect(first.status, first.text).toBe(200);
      expect(await call({ method: "POST", path: "/v2/prompts", body, key })).toMatchObject({ text: first.text, replayed: true });
    }
    expect(dev.state.idempotency.map((r) => r.key)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.keys(dev.state.prompts)).toHaveLength(3);
  });
});

describe("scope", () => {
  it("keeps keys of different project API keys apart, even with the same key and body", async () => {
    await seed();
    const other = dev.createApiKey({ scope: "project" });
    const run = (apiKey: string, identifier = "run") =>
      call({ method: "POST", path: "/v1/evaluate", body: { metricCollection: "answers", testCases: [testCase], identifier }, key: "shared", apiKey });
    const mine = await run(dev.projectKey);
    const theirs = await run(other.value);
    expect(theirs.replayed).toBe(false);
    expect(theirs.body.data!.id).not.toBe(mine.body.data!.id);
    expect((await run(other.value, "different")).status).toBe(422);
    expect(dev.state.testRuns).toHaveLength(2);
  });

  it("keeps keys of different organization API keys apart", async () => {
    const admin = dev.createApiKey({ scope: "org" });
    target = dev.createApiKey({ scope: "org" });
    const rotate = (apiKey: string) => call({ method: "POST", path: `/v1/organization/api-keys/${target.id}/rotate`, body: {}, key: "r", apiKey });
    const first = await rotate(dev.orgKey);
    const second = await rotate(admin.value);
    expect(second.replayed).toBe(false);
    expect(second.text).not.toBe(first.text);
    expect(dev.state.keys.find((k) => k.id === target.id)!.retired).toHaveLength(2);
    expect(await rotate(dev.orgKey)).toMatchObject({ text: first.text, replayed: true });
  });

  it("follows the API key through a rotation: a retry with the new value is still a replay", async () => {
    const org = dev.createApiKey({ scope: "org" });
    const update = (apiKey: string) => call({ method: "PUT", path: `/v2/organization/api-keys/${dev.orgKeyId}`, body: { valid: true }, key: "k", apiKey });
    const first = await update(org.value);
    const r = await call({ method: "POST", path: `/v1/organization/api-keys/${org.id}/rotate`, body: { gracePeriodInHours: 1 }, apiKey: dev.orgKey });
    const fresh = (r.body.data!.apiKey as { shadowValue: string }).shadowValue;
    expect(await update(fresh)).toMatchObject({ status: 200, text: first.text, replayed: true });
  });
});

describe("concurrency", () => {
  /** A judge that holds every evaluation until `release` is called. */
  function gatedJudge() {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = {
      calls: 0,
      release: () => open(),
      judge: async () => {
        gated.calls++;
        await gate;
        return { score: 1 };
      },
    };
    return gated;
  }

  it("makes a duplicate that arrives while the first is processed wait for it, then answers the same", async () => {
    const gated = gatedJudge();
    await dev.close();
    let ticks = 0;
    await start({ judge: gated.judge, clock: () => now + ticks++ });
    await seed();
    await call({ method: "POST", path: "/v1/metric-collections", body: { name: "judged", multiTurn: false, metricSettings: [{ metric: { name: "Bias" } }] } });
    const request = { method: "POST", path: "/v1/evaluate", body: { metricCollection: "judged", testCases: [testCase] }, key: "slow" };
    const first = call(request);
    await waitUntil(() => gated.calls === 1, "the first request reaching the judge");
    const authenticated = dev.state.keys.find((k) => k.scope === "project")!.lastUsed;
    const second = call(request);
    await waitUntil(() => dev.state.keys.find((k) => k.scope === "project")!.lastUsed !== authenticated, "the duplicate arriving");
    await new Promise((r) => setTimeout(r, 50)); // time to read its body and reach the key check
    // Answered at once, without waiting for the first: a different request under a key in use.
    const conflicting = await Promise.race([call({ ...request, body: { ...request.body, identifier: "other" } }), new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
    expect(conflicting?.status).toBe(422);
    gated.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status, a.text).toBe(200);
    expect(b).toMatchObject({ status: 200, text: a.text, replayed: true });
    expect(gated.calls).toBe(1);
    expect(dev.state.testRuns).toHaveLength(1);
  });
});

describe("bounded memory", () => {
  const push = (n: number) => call({ method: "POST", path: "/v2/datasets", body: { alias: "qa", goldens: [{ input: `g${n}` }] }, key: `k${n}` });
  const goldens = () => dev.state.datasets.qa!.unversioned.length;

  it("forgets the oldest answer beyond maxEntries", async () => {
    await dev.close();
    await start({ idempotency: { maxEntries: 3 } });
    for (let n = 1; n <= 4; n++) await push(n);
    expect(dev.state.idempotency.map((r) => r.key)).toEqual(["k2", "k3", "k4"]);
    expect((await push(4)).replayed).toBe(true);
    expect((await push(1)).replayed).toBe(false);
    expect(goldens()).toBe(5);
    expect(dev.state.idempotency).toHaveLength(3);
  });

  it("forgets an answer after ttlMillis by the server's clock (24 h by default)", async () => {
    await push(1);
    now += 24 * HOUR - 1;
    expect((await push(1)).replayed).toBe(true);
    now += 1;
    expect((await push(1)).replayed).toBe(false);
    expect(goldens()).toBe(2);
    await push(2);
    expect(dev.state.idempotency.map((r) => r.key)).toEqual(["k1", "k2"]);
    now += 24 * HOUR;
    await push(3);
    expect(dev.state.idempotency.map((r) => r.key)).toEqual(["k3"]);
  });

  it("rejects limits that are not positive integers", async () => {
    await expect(startDevServer({ port: 0, idempotency: { maxEntries: 0 } })).rejects.toThrow("idempotency.maxEntries must be a positive integer");
  });
});

describe("persistence with dataFile", () => {
  const dataFile = () => join(mkdtempSync(join(tmpdir(), "evaltrace-idem-")), "state.json");
  const evaluateTrace = (key?: string) => call({ method: "POST", path: "/v1/evaluate/traces/t", body: { metricCollections: "answers" }, key });

  it("answers a retry across a restart from the file, and writes nothing for it", async () => {
    const file = dataFile();
    await dev.close();
    await start({ dataFile: file });
    await seed();
    const first = await evaluateTrace("eval-1");
    expect(journalEntries(file).filter((e) => e.t === "idem")).toHaveLength(1);
    await dev.close();
    await start({ dataFile: file });
    const saved = readFileSync(file, "utf8");
    now += 1000; // a rewrite would now differ: the key's lastUsed moved
    const again = await evaluateTrace("eval-1");
    expect(again).toMatchObject({ status: 200, text: first.text, replayed: true });
    expect(dev.state.jobs).toHaveLength(1);
    expect(readFileSync(file, "utf8")).toBe(saved);
  });

  it("loads a file written before remembered keys existed", async () => {
    const file = dataFile();
    await dev.close();
    await start({ dataFile: file });
    await seed();
    // The former format: the whole state as one JSON document, here from before remembered keys.
    const { idempotency: _, ...old } = JSON.parse(JSON.stringify(dev.state)) as Record<string, unknown>;
    await dev.close();
    writeFileSync(file, JSON.stringify(old));
    await start({ dataFile: file });
    expect(dev.state.idempotency).toEqual([]);
    await evaluateTrace("eval-1");
    await evaluateTrace("eval-1");
    expect(dev.state.jobs).toHaveLength(1);
    expect(journalEntries(file).filter((e) => e.t === "idem")).toHaveLength(1);
  });

  it("keeps only the newest maxEntries of a file saved with a larger cap", async () => {
    const file = dataFile();
    await dev.close();
    await start({ dataFile: file });
    for (let n = 1; n <= 3; n++) await call({ method: "POST", path: "/v2/prompts", body: { alias: "p", text: `${n}` }, key: `k${n}` });
    await dev.close();
    await start({ dataFile: file, idempotency: { maxEntries: 2 } });
    expect(dev.state.idempotency.map((r) => r.key)).toEqual(["k2", "k3"]);
  });
});
