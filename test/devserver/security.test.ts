import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, type DevServerOptions, startDevServer } from "../../src/devserver/index.js";

let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});
const start = async (options: DevServerOptions) => {
  dev = await startDevServer({ port: 0, ...options });
  return dev;
};

/** A GET with any Host header (fetch does not let one set it). */
function get(d: DevServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(d.url);
  return new Promise((resolve, reject) => {
    const req = request({ agent: false, host: url.hostname, port: url.port, path, headers }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("beyond loopback", () => {
  it("warns and protects the viewer and read API when bound to 0.0.0.0", async () => {
    const d = await start({ host: "0.0.0.0" });
    expect(d.warnings.join(" ")).toContain("beyond loopback");
    expect(d.loginUrl).toMatch(/\/\?login=/);
    const port = new URL(d.url).port;
    const local = { ...d, url: `http://127.0.0.1:${port}` } as DevServer;
    expect((await get(local, "/_dev/traces")).status).toBe(401);
    expect((await get(local, "/_dev/keys")).status).toBe(401);
    expect((await get(local, "/")).status).toBe(401);
    expect((await get(local, "/_dev/traces", { SERVICE_API_KEY: d.projectKey })).status).toBe(200);
    expect((await get(local, "/_dev/traces", { SERVICE_API_KEY: d.orgKey })).status).toBe(401);
  });

  it("opens the viewer once through the login link, then by its session cookie", async () => {
    const d = await start({ protectReads: true });
    const login = new URL(d.loginUrl!);
    const first = await get(d, login.pathname + login.search);
    expect(first.status).toBe(302);
    const cookie = String(first.headers["set-cookie"]).split(";")[0]!;
    expect(String(first.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await get(d, login.pathname + login.search)).status).toBe(403); // one time only
    expect((await get(d, "/", { cookie })).status).toBe(200);
    expect((await get(d, "/_dev/traces", { cookie })).status).toBe(200);
    expect((await get(d, "/_dev/traces", { cookie: "evaltrace_dev_session=forged" })).status).toBe(401);
    expect(d.loginUrl).toBeDefined();
  });

  it("leaves reads open on loopback, as before", async () => {
    const d = await start({});
    expect(d.warnings).toEqual([]);
    expect(d.loginUrl).toBeUndefined();
    expect((await get(d, "/_dev/traces")).status).toBe(200);
  });
});

describe("Host header check (DNS rebinding)", () => {
  it("answers the viewer and read API only under loopback names, IP literals, the bound host and allowed names", async () => {
    const d = await start({ allowedHosts: ["devbox.internal"] });
    const port = new URL(d.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "app.localhost", `devbox.internal:${port}`, "10.0.0.7"]) {
      expect((await get(d, "/_dev/traces", { host })).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, "rebind.attacker.test", "localhost.evil.example"]) {
      const r = await get(d, "/_dev/traces", { host });
      expect(r.status, host).toBe(403);
      expect(JSON.parse(r.text).error).toContain("DNS rebinding");
      expect((await get(d, "/", { host })).status, host).toBe(403);
    }
    // The API authenticates every request with a key: any Host (e.g. host.docker.internal) works.
    expect((await get(d, "/v1/metrics", { host: "host.docker.internal", SERVICE_API_KEY: d.projectKey })).status).toBe(200);
  });

  it("can be turned off with allowedHosts ['*']", async () => {
    const d = await start({ allowedHosts: ["*"] });
    expect((await get(d, "/_dev/traces", { host: "anything.example" })).status).toBe(200);
  });
});
