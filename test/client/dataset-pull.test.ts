import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client, ServiceError, ValidationError } from "../../src/index.js";
import { apiFor } from "../helpers/api.js";

let dev: DevServer;
let client: Client;
let lines: string[];
beforeEach(async () => {
  lines = [];
  dev = await startDevServer({ port: 0, plan: "team", log: (line) => lines.push(line) });
  client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await dev.close();
});

describe("datasets.pull against the emulator (strict)", () => {
  it("returns the pushed single-turn goldens with every field, finalized ones only by default", async () => {
    const golden = { input: "What is 2+2?", expectedOutput: "4", context: ["math"], expectedTools: [{ name: "calc", inputParameters: { a: 2 } }], tags: ["t"] };
    const { datasetId } = await client.datasets.push({ alias: "qa", goldens: [golden] });
    await client.datasets.push({ alias: "qa", goldens: [{ input: "draft" }], finalized: false });
    const pulled = await client.datasets.pull("qa");
    expect(pulled).toMatchObject({ alias: "qa", datasetId, version: null, multiTurn: false });
    expect(pulled.goldens).toEqual([{ ...golden, finalized: true }]);
    const all = await client.datasets.pull("qa", { finalized: false });
    expect(all.goldens.map((g) => (g as { input: string }).input)).toEqual(["What is 2+2?", "draft"]);
  });

  it("returns multi-turn goldens as multiTurn with the turn ids the service assigned", async () => {
    await client.datasets.push({ alias: "chat", goldens: [{ scenario: "refund", turns: [{ role: "user", content: "hi" }] }] });
    const pulled = await client.datasets.pull("chat");
    expect(pulled.multiTurn).toBe(true);
    const golden = pulled.goldens[0] as { scenario: string; turns: { id: string; role: string; content: string }[] };
    expect(golden.scenario).toBe("refund");
    expect(golden.turns[0]).toMatchObject({ role: "user", content: "hi", id: expect.any(String) });
  });

  it("selects the requested version, and the latest version when none is given", async () => {
    await client.datasets.push({ alias: "v", goldens: [{ input: "unversioned" }] });
    await client.datasets.push({ alias: "v", version: "1", goldens: [{ input: "one" }] });
    await client.datasets.push({ alias: "v", version: "1.10", goldens: [{ input: "one-ten" }] });
    await client.datasets.push({ alias: "v", version: "1.2", goldens: [{ input: "one-two" }] });
    const inputs = (d: { goldens: unknown[] }) => d.goldens.map((g) => (g as { input: string }).input);
    expect(inputs(await client.datasets.pull("v", { version: "1" }))).toEqual(["one"]);
    expect(inputs(await client.datasets.pull("v", { version: "1.2" }))).toEqual(["one-two"]);
    const latest = await client.datasets.pull("v");
    expect(latest.version).toBe("1.10");
    expect(inputs(latest)).toEqual(["one-ten"]);
  });

  it("an unknown alias or version is the service's 404 as a ServiceError naming it", async () => {
    const err = (await client.datasets.pull("nope").catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(404);
    expect(err.message).toContain("no dataset with alias nope");
    await client.datasets.push({ alias: "has", goldens: [{ input: "a" }] });
    const v = (await client.datasets.pull("has", { version: "3" }).catch((e: unknown) => e)) as ServiceError;
    expect(v.status).toBe(404);
    expect(v.message).toContain("has no version 3");
  });

  it("rejects a bad alias, version or option before sending anything", async () => {
    const before = lines.length;
    for (const call of [() => client.datasets.pull(""), () => client.datasets.pull("a", { version: "v1" }), () => client.datasets.pull("a", { tag: "x" } as never), () => client.datasets.pull("a", { finalized: "yes" } as never)]) {
      await expect(call()).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(client.datasets.pull("a", { version: "v1" })).rejects.toThrow(/options\.version must be a dotted numeric string/);
    expect(lines.length).toBe(before);
  });

  it("the route answers the vendor SDK's query (finalized, public, version) and rejects unknown parameters in strict mode", async () => {
    const api = apiFor(dev);
    await client.datasets.push({ alias: "raw", goldens: [{ input: "a" }] });
    const ok = await api("GET", "/v1/datasets/raw?finalized=true&public=false");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, data: { id: expect.any(String), version: null, goldens: [{ input: "a", finalized: true }] } });
    const unknown = await api("GET", "/v1/datasets/raw?label=prod");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain("unknown query parameter label");
    const bad = await api("GET", "/v1/datasets/raw?finalized=yes");
    expect(bad.status).toBe(400);
    const noKey = await api("GET", "/v1/datasets/raw", undefined, null);
    expect(noKey.status).toBe(401);
  });

  it("in lenient mode an unknown query parameter is ignored and noted in the request log", async () => {
    const lenient = await startDevServer({ port: 0, strict: false, log: (line) => lines.push(line) });
    try {
      const c = new Client({ apiKey: lenient.projectKey, baseUrl: lenient.url, maxRetries: 0 });
      await c.datasets.push({ alias: "raw", goldens: [{ input: "a" }] });
      await c.close();
      const res = await apiFor(lenient)("GET", "/v1/datasets/raw?label=prod");
      expect(res.status).toBe(200);
      expect(lines.some((l) => l.includes("ignored unknown query parameter label"))).toBe(true);
    } finally {
      await lenient.close();
    }
  });
});
