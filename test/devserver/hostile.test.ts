import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";

/** Names of built-in object members: the ids that broke plain-object maps. */
const HOSTILE_IDS = ["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf", "prototype", "__defineGetter__", "isPrototypeOf"];

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0, maxBodyBytes: 1024 * 1024 });
});
afterAll(() => dev.close());

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request sent as given (no normalization of the target or method), on a connection of its own. */
function raw(method: string, target: string, body?: string, headers: Record<string, string | string[]> = {}): Promise<Raw> {
  const url = new URL(dev.url);
  return new Promise((resolve, reject) => {
    const req = request({ agent: false, host: url.hostname, port: url.port, method, path: target, headers: { SERVICE_API_KEY: dev.projectKey, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const json = (method: string, target: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(method, target, JSON.stringify(body), { "content-type": "application/json", ...headers });

/** No 500; an error answer is the usual `{success: false, error}` JSON body. */
function expectHandled(r: Raw, what: string): void {
  expect(r.status, `${what}: ${r.text.slice(0, 300)}`).not.toBe(500);
  expect(r.status, what).toBeGreaterThanOrEqual(200);
  expect(r.status, what).toBeLessThan(500);
  if (r.status >= 400 && r.text !== "" && r.headers["content-type"]?.toString().startsWith("application/json")) {
    const body = JSON.parse(r.text) as { success?: unknown; error?: unknown };
    expect(body.success, what).toBe(false);
    expect(typeof body.error, what).toBe("string");
  }
}

const T0 = "2026-06-01T10:00:00.000Z";
const T1 = "2026-06-01T10:00:01.000Z";
const enc = encodeURIComponent;

describe("ids named like built-in object members", () => {
  for (const id of HOSTILE_IDS) {
    it(`${id} as trace uuid, span uuid, thread id, user id, prompt alias, dataset alias, metric and collection name`, async () => {
      const trace = {
        uuid: id,
        startTime: T0,
        endTime: T1,
        threadId: id,
        userId: id,
        input: "hi",
        output: "yo",
        baseSpans: [{ uuid: `span-${id}`, name: id, startTime: T0, endTime: T1 }],
      };
      const created = await json("POST", "/v1/traces", trace);
      expect(created.status, created.text).toBe(200);
      // A retry of the same body is a no-op; another body under the same uuid conflicts.
      expect((await json("POST", "/v1/traces", trace)).status).toBe(200);
      expect((await json("POST", "/v1/traces", { ...trace, name: "other" })).status).toBe(409);
      const spanTrace = { uuid: `trace-${id}`, startTime: T0, endTime: T1, baseSpans: [{ uuid: id, name: "s", startTime: T0, endTime: T1 }] };
      expect((await json("POST", "/v1/traces", spanTrace)).status).toBe(200);
      const update = await json("PUT", `/v1/traces/${enc(id)}`, { tags: [id], metadata: { [id]: id } });
      expect(update.status, update.text).toBe(200);
      expect((await json("PUT", `/v1/traces/${enc(`missing-${id}`)}`, { tags: ["x"] })).status).toBe(404);

      const one = await raw("GET", `/_dev/traces/${enc(id)}`);
      expect(one.status, one.text).toBe(200);
      expect(JSON.parse(one.text)).toMatchObject({ uuid: id, threadId: id, userId: id, tags: [id] });
      const thread = await raw("GET", `/_dev/threads/${enc(id)}`);
      expect(JSON.parse(thread.text)).toMatchObject([{ uuid: id }]);
      expect(JSON.parse((await raw("GET", "/_dev/users")).text)[id]).toEqual([id]);
      expect((await raw("GET", `/_dev/traces/${enc(`${id}-none`)}`)).status).toBe(404);

      // Metric and collection names, then offline evaluations addressed by the hostile ids.
      const metric = await json("POST", "/v1/metrics", { name: id, criteria: "c", multiTurn: true });
      expect(metric.status, metric.text).toBe(200);
      expect((await json("POST", "/v1/metric-collections", { name: id, multiTurn: true, metricSettings: [{ metric: { name: id } }] })).status).toBe(200);
      expect((await json("POST", "/v1/metric-collections", { name: id, multiTurn: false })).status).toBe(200);
      const thr = await json("POST", `/v1/evaluate/threads/${enc(id)}`, { metricCollections: id });
      expect(thr.status, thr.text).toBe(200);
      expect((await json("POST", `/v1/evaluate/traces/${enc(id)}`, { metricCollections: id })).status).toBe(200);
      expect((await json("POST", `/v1/evaluate/spans/${enc(id)}`, { metricCollections: id })).status).toBe(200);
      expect((await json("POST", `/v1/evaluate/threads/${enc(`${id}-none`)}`, { metricCollections: id })).status).toBe(404);

      const prompt = await json("POST", "/v2/prompts", { alias: id, text: "hello", branch: id });
      expect(prompt.status, prompt.text).toBe(200);
      expect((await json("POST", "/v2/prompts", { alias: id, text: "again" })).status).toBe(200);
      const dataset = await json("POST", "/v2/datasets", { alias: id, goldens: [{ input: "q" }] });
      expect(dataset.status, dataset.text).toBe(200);
      expect((await json("POST", "/v2/datasets", { alias: id, goldens: [{ input: "q2" }] })).status).toBe(200);
      expect(dev.state.datasets[id]!.unversioned).toHaveLength(2);
      expect(dev.state.prompts[id]!.branches[id]).toHaveLength(1);
      // Nothing leaked onto the shared prototype.
      expect(({} as Record<string, unknown>).uuid).toBeUndefined();
    });
  }
});

describe("malformed requests", () => {
  it("answers 400 to malformed percent-encoding in a path", async () => {
    for (const target of ["/_dev/traces/%", "/_dev/traces/%zz", "/_dev/threads/%E0%A4%A", "/_dev/traces/%ED%A0%80"]) {
      const r = await raw("GET", target);
      expectHandled(r, target);
      expect(r.status, target).toBe(400);
    }
    for (const target of ["/v1/traces/%", "/v1/evaluate/threads/%c0", "/v1/metrics/%"]) {
      const r = await json(target.startsWith("/v1/traces") || target.startsWith("/v1/metrics") ? "PUT" : "POST", target, {});
      expect(r.status, target).toBe(400);
    }
  });

  it("answers 400 to JSON nested 5,000 deep, without overflowing the stack", async () => {
    for (const body of ["[".repeat(5000) + "]".repeat(5000), `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`]) {
      const r = await raw("POST", "/v1/traces", body, { "content-type": "application/json" });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text).error).toContain("nested more than");
    }
    // Deep but under the cap: checked normally.
    const ok = await json("POST", "/v1/traces", { uuid: "deep-meta", startTime: T0, endTime: T1, metadata: JSON.parse(`${'{"a":'.repeat(200)}1${"}".repeat(200)}`) });
    expect(ok.status, ok.text).toBe(200);
  });

  it("answers 400 naming the place to a large body that breaks off or goes wrong near its end", async () => {
    const spans = Array.from({ length: 5000 }, (_, i) => ({ uuid: `m-${i}`, name: "s", startTime: T0, endTime: T1 }));
    const good = JSON.stringify({ uuid: "malformed-big", startTime: T0, endTime: T1, baseSpans: spans });
    const cases: [string, RegExp][] = [
      [good.slice(0, -3), /Unexpected end of JSON input/],
      [`${good.slice(0, -2)}x]}`, new RegExp(`Unexpected character "x" in JSON at position ${good.length - 2}`)],
      [`${good} trailing`, new RegExp(`position ${good.length + 1}`)],
      [good.replace('"m-4000",', '"m-4000" '), /position/],
    ];
    for (const [body, message] of cases) {
      const r = await raw("POST", "/v1/traces", body, { "content-type": "application/json" });
      expect(r.status, r.text).toBe(400);
      expect(JSON.parse(r.text).error).toMatch(/^malformed JSON body: /);
      expect(JSON.parse(r.text).error).toMatch(message);
    }
    expect((await raw("GET", "/_dev/traces/malformed-big", undefined, {})).status).toBe(404);
    // The same body well-formed is taken.
    expect((await raw("POST", "/v1/traces", good, { "content-type": "application/json" })).status).toBe(200);
  });

  it("answers 413 to a body over the limit", async () => {
    const r = await raw("POST", "/v1/traces", JSON.stringify({ uuid: "big", pad: "x".repeat(2 * 1024 * 1024) }), { "content-type": "application/json" });
    expect(r.status).toBe(413);
  });

  it("handles odd methods, targets and headers", async () => {
    const cases: [string, string, Record<string, string | string[]>?][] = [
      ["DELETE", "/v1/traces/x"],
      ["PATCH", "/v1/metrics"],
      ["OPTIONS", "/v1/traces"],
      ["PROPFIND", "/"],
      ["HEAD", "/_dev/traces"],
      ["POST", "/_dev/traces"],
      ["GET", "//evil.example/x"],
      ["GET", "http://evil.example/_dev/traces"],
      ["GET", "/_dev/nothing"],
      ["GET", "/_dev/traces/a/b/c"],
      ["GET", "/v1/metrics", { SERVICE_API_KEY: "" }],
      ["GET", "/v1/metrics", { SERVICE_API_KEY: ["a", "b"] }],
      ["POST", "/v1/traces", { "content-type": "text/plain" }],
      ["POST", "/v1/traces", { "content-type": "application/json", "idempotency-key": "x".repeat(300) }],
      ["POST", "/v1/traces", { "content-type": "application/json", "idempotency-key": ["a", "b"] }],
    ];
    for (const [method, target, headers] of cases) {
      const r = await raw(method, target, method === "POST" ? "{" : undefined, headers);
      expectHandled(r, `${method} ${target}`);
    }
  });
});

describe("fuzzed requests", () => {
  const segment = fc.oneof(
    fc.constantFrom(...HOSTILE_IDS, "%", "%zz", "%00", "..", ".", "%2F", "%E0%A4%A", "~", "a%20b"),
    fc.string({ maxLength: 12 }).map((s) => s.replace(/[^\x21-\x7e]/g, "")),
  );
  const prefix = fc.constantFrom("/v1/traces", "/v1/evaluate/threads", "/v1/evaluate/traces", "/v1/evaluate/spans", "/v1/metrics", "/v1/metric-collections", "/_dev/traces", "/_dev/threads", "/_dev", "/v2/organization/api-keys", "/v1/organization/api-keys", "");
  const target = fc.tuple(prefix, fc.array(segment, { maxLength: 3 })).map(([p, segs]) => `${p}/${segs.join("/")}`);
  const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH");

  it("never answers 500 to random targets", async () => {
    await fc.assert(
      fc.asyncProperty(method, target, async (m, t) => {
        const r = await raw(m, t, m === "GET" ? undefined : "{}", { "content-type": "application/json" });
        expectHandled(r, `${m} ${t}`);
      }),
      { numRuns: 300 },
    );
  });

  it("never answers 500 to random JSON bodies on every write endpoint", async () => {
    const writes = ["/v1/traces", "/v1/traces/fuzz", "/v1/metrics", "/v1/batch-metrics", "/v1/metric-collections", "/v1/evaluate", "/v1/evaluate/threads/fuzz", "/v2/prompts", "/v2/datasets"];
    await json("POST", "/v1/traces", { uuid: "fuzz", startTime: T0, endTime: T1 });
    const key = fc.oneof(fc.constantFrom(...HOSTILE_IDS, "uuid", "startTime", "endTime", "traces", "baseSpans", "llmSpans", "metrics", "alias", "goldens", "name"), fc.string({ maxLength: 6 }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom(null, true, 0, -1, 1.5, "", T0, "x", ...HOSTILE_IDS),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(key, tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), fc.dictionary(key, value, { maxKeys: 6 }), async (path, body) => {
        const m = path === "/v1/traces/fuzz" ? "PUT" : "POST";
        expectHandled(await json(m, path, body), `${m} ${path} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: 300 },
    );
  });

  it("never answers 500 to random header values", async () => {
    const headerValue = fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, ""));
    const name = fc.constantFrom("SERVICE_API_KEY", "SERVICE-API-KEY", "content-type", "idempotency-key", "host", "cookie", "x-forwarded-for", "accept");
    await fc.assert(
      fc.asyncProperty(fc.dictionary(name, headerValue, { maxKeys: 4 }), method, async (headers, m) => {
        const r = await raw(m, "/v1/traces", m === "GET" ? undefined : JSON.stringify({ uuid: "h", startTime: T0, endTime: T1 }), headers);
        expectHandled(r, `${m} ${JSON.stringify(headers)}`);
      }),
      { numRuns: 200 },
    );
  });
});
