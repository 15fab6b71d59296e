import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  const api = apiFor(dev);
  await api("POST", "/v1/traces", {
    uuid: "t1",
    name: "one",
    threadId: "th",
    startTime: "2026-01-01T00:00:00Z",
    endTime: "2026-01-01T00:00:01Z",
    baseSpans: [{ uuid: "s1", name: "s", startTime: "2026-01-01T00:00:00Z", endTime: "2026-01-01T00:00:01Z" }],
  });
  await api("POST", "/v1/traces", { uuid: "t2", startTime: "2026-01-01T00:00:02Z", endTime: "2026-01-01T00:00:03Z" });
});
afterAll(() => dev.close());

const read = async (path: string) => {
  const res = await fetch(dev.url + path);
  return { status: res.status, body: (await res.json()) as unknown };
};

it("lists traces newest first with their span counts, and serves one trace with its spans", async () => {
  const list = (await read("/_dev/traces")).body as { uuid: string; spanCount: number }[];
  expect(list.map((t) => [t.uuid, t.spanCount])).toEqual([
    ["t2", 0],
    ["t1", 1],
  ]);
  const one = (await read("/_dev/traces/t1")).body as { name: string; spans: { uuid: string }[] };
  expect(one.name).toBe("one");
  expect(one.spans.map((s) => s.uuid)).toEqual(["s1"]);
  expect((await read("/_dev/traces/nope")).status).toBe(404);
});

it("serves threads, jobs, keys (masked) and the rest without a key", async () => {
  expect((await read("/_dev/threads/th")).body).toMatchObject([{ uuid: "t1" }]);
  const keys = (await read("/_dev/keys")).body as { value: string }[];
  for (const k of keys) expect(k.value).toMatch(/^\*{15}.{6}$/);
  for (const p of ["/_dev/jobs", "/_dev/test-runs", "/_dev/prompts", "/_dev/datasets", "/_dev/metrics", "/_dev/metric-collections", "/_dev/users"]) {
    expect((await read(p)).status, p).toBe(200);
  }
  expect((await fetch(`${dev.url}/_dev/traces`, { method: "POST" })).status).toBe(405);
});
