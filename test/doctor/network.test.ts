import { createServer as createHttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type DoctorReport, doctor } from "../../src/doctor/index.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

const of = (report: DoctorReport, check: string) => report.findings.filter((f) => f.check === check);

/** A port that was free a moment ago: nothing listens on it. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("doctor(): the base URL and the key, against the emulator in strict mode", () => {
  it("a project key on the emulator: base-url names the emulator and api-key says a valid project key, both ok", async () => {
    const report = await doctor({ baseUrl: dev.url, apiKey: dev.projectKey });
    expect(of(report, "base-url")).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("the local emulator (evaltrace dev)") })]);
    expect(of(report, "api-key")).toEqual([expect.objectContaining({ ok: true, message: expect.stringContaining("is a valid project key (GET /v1/metrics answered 200)") })]);
  });

  it("an organization key: one api-key error naming the organization key and the fix of a project key", async () => {
    const report = await doctor({ baseUrl: dev.url, apiKey: dev.orgKey });
    const findings = of(report, "api-key");
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ ok: false, severity: "error", message: expect.stringContaining("is an organization key"), fix: expect.stringContaining("svc_<region>_proj_") });
    expect(report.healthy).toBe(false);
  });

  it("a wrong key: an api-key error carrying the service's reason (unknown API key)", async () => {
    const report = await doctor({ baseUrl: dev.url, apiKey: "svc_local_proj_notakeythisserviceissued" });
    expect(of(report, "api-key")).toEqual([expect.objectContaining({ ok: false, severity: "error", message: expect.stringContaining("rejects the key ...issued: unknown API key") })]);
  });

  it("an expired project key: an api-key error saying it expired, and the fix of a current key", async () => {
    const expired = dev.createApiKey({ scope: "project", expiresInDays: 0 });
    const report = await doctor({ baseUrl: dev.url, apiKey: expired.value });
    expect(of(report, "api-key")[0]).toMatchObject({ ok: false, severity: "error", message: expect.stringContaining("expired"), fix: expect.stringContaining("current project key") });
  });

  it("a key with a trailing newline: an api-key error about the stray character, and the address still reported reachable", async () => {
    const report = await doctor({ baseUrl: dev.url, apiKey: `${dev.projectKey}\n` });
    expect(of(report, "base-url")[0]).toMatchObject({ ok: true });
    expect(of(report, "api-key")).toEqual([expect.objectContaining({ ok: false, severity: "error", message: expect.stringContaining("whitespace, quotes or control characters"), fix: expect.stringContaining("trimmed") })]);
  });

  it("no key at all: an api-key error saying tracing is off, pointing at EVALTRACE_API_KEY and the emulator's banner", async () => {
    const saved = { SERVICE_API_KEY: process.env.SERVICE_API_KEY, EVALTRACE_API_KEY: process.env.EVALTRACE_API_KEY };
    delete process.env.SERVICE_API_KEY;
    delete process.env.EVALTRACE_API_KEY;
    const report = await doctor({ baseUrl: dev.url });
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    expect(of(report, "api-key")[0]).toMatchObject({ ok: false, severity: "error", message: expect.stringContaining("no API key"), fix: expect.stringContaining("EVALTRACE_API_KEY") });
    expect(of(report, "api-key")[0]!.fix).toContain("the emulator prints its project key");
  });

  it("a port with nothing listening: a base-url error (ECONNREFUSED, start the emulator) and the key reported as not verified", async () => {
    const port = await deadPort();
    const report = await doctor({ baseUrl: `http://127.0.0.1:${port}`, apiKey: dev.projectKey });
    expect(of(report, "base-url")).toEqual([
      expect.objectContaining({ ok: false, severity: "error", message: expect.stringContaining("ECONNREFUSED"), fix: expect.stringContaining(`npx evaltrace dev --port ${port}`) }),
    ]);
    expect(of(report, "api-key")).toEqual([expect.objectContaining({ ok: true, skipped: true, message: expect.stringContaining("was not verified") })]);
    expect(report.healthy).toBe(false);
  });

  it("a server that accepts and never answers: the base-url error says no answer within the timeout, and doctor() returns within 3 s (no retries)", async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const started = Date.now();
    const report = await doctor({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, apiKey: dev.projectKey, timeoutMillis: 300 });
    expect(Date.now() - started).toBeLessThan(3000); // the local checks read node_modules too
    expect(of(report, "base-url")[0]).toMatchObject({ ok: false, message: expect.stringContaining("no answer within 300 ms") });
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it("an address that is not the emulator (404 on /_dev/version): base-url says not the emulator, so taken for the service, and a 404 on GET /v1/metrics is a warning that the key could not be verified", async () => {
    const other = createHttpServer((_req, res) => res.writeHead(404, { "content-type": "application/json" }).end('{"success":false,"error":"not found"}'));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const report = await doctor({ baseUrl: `http://127.0.0.1:${(other.address() as AddressInfo).port}`, apiKey: dev.projectKey });
    expect(of(report, "base-url")[0]).toMatchObject({ ok: true, message: expect.stringContaining("not the emulator, so taken for the service") });
    expect(of(report, "api-key")[0]).toMatchObject({ ok: false, severity: "warning", message: expect.stringContaining("HTTP 404 (not found)") });
    await new Promise<void>((resolve) => other.close(() => resolve()));
  });

  it("plain http to a host other than this one: a base-url warning that the key travels unencrypted", async () => {
    // 192.0.2.1 (TEST-NET-1) never answers: the warning does not depend on reaching it.
    const report = await doctor({ baseUrl: "http://192.0.2.1:9", apiKey: dev.projectKey, timeoutMillis: 200 });
    expect(of(report, "base-url")).toContainEqual(expect.objectContaining({ ok: false, severity: "warning", message: expect.stringContaining("plain http to another host"), fix: expect.stringContaining("https://") }));
  });

  it("bad options are a TypeError naming the option", async () => {
    await expect(doctor({ baseUrl: "ftp://x" })).rejects.toThrow(/`baseUrl` must be an http\(s\) URL/);
    await expect(doctor({ timeoutMillis: -1 })).rejects.toThrow(/`timeoutMillis` must be a positive integer/);
    await expect(doctor({ apiKeys: "x" } as never)).rejects.toThrow(/unknown option `apiKeys`/);
  });
});
