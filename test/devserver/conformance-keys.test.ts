import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";
import { MODES } from "./modes.js";

describe.each(MODES)("$mode mode", ({ strict }) => {
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  let now = Date.parse("2026-06-01T00:00:00Z");
  let dev: DevServer;
  let api: ReturnType<typeof apiFor>;

  beforeEach(async () => {
    now = Date.parse("2026-06-01T00:00:00Z");
    dev = await startDevServer({ port: 0, strict, clock: () => now });
    api = apiFor(dev);
  });
  afterEach(() => dev.close());

  const rotate = (id: number, body: unknown, key: string) => api("POST", `/v1/organization/api-keys/${id}/rotate`, body, key);
  const setValid = (id: number, valid: boolean, key: string) => api("PUT", `/v2/organization/api-keys/${id}`, { valid }, key);
  const projectCall = (key = dev.projectKey) => api("GET", "/v1/metrics", undefined, key);

  describe("authentication (spec 5, 7 rule 8)", () => {
    it("issues keys with the scope prefixes of spec 2.1", () => {
      expect(dev.projectKey).toMatch(/^svc_local_proj_/);
      expect(dev.orgKey).toMatch(/^svc_local_org_/);
    });

    it("rejects a request without the header with 401", async () => {
      const r = await api("GET", "/v1/metrics", undefined, null);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false });
      expect(r.body.error).toContain("SERVICE_API_KEY");
    });

    it("rejects an unknown key with 401", async () => {
      expect((await projectCall("svc_local_proj_nope")).status).toBe(401);
    });

    it("takes project keys on project endpoints and organization keys on key endpoints only", async () => {
      expect((await projectCall()).status).toBe(200);
      expect((await projectCall(dev.orgKey)).status).toBe(403);
      expect((await setValid(dev.orgKeyId, true, dev.projectKey)).status).toBe(403);
    });

    it("records lastUsed when a key authenticates", async () => {
      const second = dev.createApiKey({ scope: "org", name: "admin" });
      now += 1000;
      await projectCall();
      const r = await setValid(dev.orgKeyId, true, second.value);
      const keys = (await (await fetch(`${dev.url}/_dev/keys`)).json()) as { id: number; lastUsed: string | null; scope: string }[];
      expect(keys.find((k) => k.scope === "project")!.lastUsed).toBe(new Date(now).toISOString());
      expect(r.body.data!.lastUsed).toBeNull(); // this org key itself was never used
    });
  });

  describe("update organization key (spec 3.1, 4.2)", () => {
    it("deactivates at once and reactivates the same value; secrets masked; deprecated flag", async () => {
      const admin = dev.createApiKey({ scope: "org" });
      const target = dev.createApiKey({ scope: "org", name: "ci" });
      const off = await setValid(target.id, false, admin.value);
      expect(off.status).toBe(200);
      expect(off.body).toMatchObject({ success: true, deprecated: false, data: { id: target.id, name: "ci", valid: false } });
      expect(off.body.data!.value).toBe(`${"*".repeat(15)}${target.value.slice(-6)}`);
      const rejected = await setValid(admin.id, true, target.value);
      expect(rejected.status).toBe(401);
      expect(rejected.body.error).toContain("deactivated");
      expect((await setValid(target.id, true, admin.value)).status).toBe(200);
      expect((await setValid(admin.id, true, target.value)).status).toBe(200);
    });

    it("requires a boolean valid", async () => {
      const r = await setValid(dev.orgKeyId, "yes" as never, dev.orgKey);
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("body.valid");
      expect(r.body.deprecated).toBe(false);
    });
  });

  describe("rotate organization key (spec 3.1, 4.1)", () => {
    it("without a grace period returns the full new value once and the old one stops at once", async () => {
      const r = await rotate(dev.orgKeyId, {}, dev.orgKey);
      expect(r.status).toBe(200);
      const key = (r.body.data as { apiKey: Record<string, unknown> }).apiKey;
      expect(key.value).toMatch(/^svc_local_org_/);
      expect(key).toMatchObject({ id: dev.orgKeyId, shadowValue: null, rotatesAt: null });
      const old = await setValid(dev.orgKeyId, true, dev.orgKey);
      expect(old.status).toBe(401);
      expect(old.body.error).toContain("superseded");
      expect((await setValid(dev.orgKeyId, true, key.value as string)).status).toBe(200);
    });

    it("with a grace period issues a shadow value; both authenticate, the old with Sunset warnings, until rotatesAt", async () => {
      const r = await rotate(dev.orgKeyId, { gracePeriodInHours: 24 }, dev.orgKey);
      const key = (r.body.data as { apiKey: Record<string, string> }).apiKey;
      expect(key.value).toBe(`${"*".repeat(15)}${dev.orgKey.slice(-6)}`);
      expect(key.shadowValue).toMatch(/^svc_local_org_/);
      expect(key.rotatesAt).toBe(new Date(now + DAY).toISOString());
      const withOld = await setValid(dev.orgKeyId, true, dev.orgKey);
      expect(withOld.status).toBe(200);
      expect(withOld.headers.get("sunset")).toBe(new Date(now + DAY).toUTCString());
      expect(withOld.headers.get("x-api-key-warning")).toContain("rotated");
      const withNew = await setValid(dev.orgKeyId, true, key.shadowValue!);
      expect(withNew.status).toBe(200);
      expect(withNew.headers.get("sunset")).toBeNull();
      expect(withNew.body.data).toMatchObject({ shadowValue: `${"*".repeat(15)}${key.shadowValue!.slice(-6)}` });
      now += DAY - 1;
      expect((await setValid(dev.orgKeyId, true, dev.orgKey)).status).toBe(200);
      now += 1;
      expect((await setValid(dev.orgKeyId, true, dev.orgKey)).status).toBe(401);
      const after = await setValid(dev.orgKeyId, true, key.shadowValue!);
      expect(after.status).toBe(200);
      expect(after.body.data).toMatchObject({ shadowValue: null, rotatesAt: null, value: `${"*".repeat(15)}${key.shadowValue!.slice(-6)}` });
    });

    it("rejects a grace period that would extend past the expiration (spec 8)", async () => {
      const admin = dev.createApiKey({ scope: "org" });
      const target = dev.createApiKey({ scope: "org", expiresInDays: 1 });
      const r = await rotate(target.id, { gracePeriodInHours: 25 }, admin.value);
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("gracePeriodInHours");
      expect((await rotate(target.id, { gracePeriodInHours: 24 }, admin.value)).status).toBe(200);
    });

    it("rejects a second rotation while one is pending", async () => {
      await rotate(dev.orgKeyId, { gracePeriodInHours: 1 }, dev.orgKey);
      expect((await rotate(dev.orgKeyId, { gracePeriodInHours: 1 }, dev.orgKey)).status).toBe(409);
    });

    it("expires keys at expiresAt, and revives them only by a rotation with expiresInDays and no grace (rule 7)", async () => {
      const admin = dev.createApiKey({ scope: "org" });
      const target = dev.createApiKey({ scope: "org", expiresInDays: 2 });
      now += 2 * DAY;
      const expired = await setValid(admin.id, true, target.value);
      expect(expired.status).toBe(401);
      expect(expired.body.error).toContain("expired");
      expect((await rotate(target.id, {}, admin.value)).status).toBe(400);
      expect((await rotate(target.id, { expiresInDays: 5, gracePeriodInHours: 1 }, admin.value)).status).toBe(400);
      const revived = await rotate(target.id, { expiresInDays: 5 }, admin.value);
      expect(revived.status).toBe(200);
      const key = (revived.body.data as { apiKey: Record<string, string> }).apiKey;
      expect(key.expiresAt).toBe(new Date(now + 5 * DAY).toISOString());
      expect((await setValid(admin.id, true, key.value!)).status).toBe(200);
    });

    it("removes the expiration when expiresInDays is null and keeps it when omitted", async () => {
      const admin = dev.createApiKey({ scope: "org" });
      const target = dev.createApiKey({ scope: "org", expiresInDays: 3 });
      const kept = await rotate(target.id, {}, admin.value);
      expect((kept.body.data as { apiKey: Record<string, unknown> }).apiKey.expiresAt).toBe(new Date(now + 3 * DAY).toISOString());
      const removed = await rotate(target.id, { expiresInDays: null }, admin.value);
      expect((removed.body.data as { apiKey: Record<string, unknown> }).apiKey.expiresAt).toBeNull();
    });

    it("rejects a non-integer or unknown apiKeyId, and project keys as targets", async () => {
      expect((await rotate("abc" as never, {}, dev.orgKey)).status).toBe(400);
      expect((await rotate(999, {}, dev.orgKey)).status).toBe(404);
      const projectKeyId = dev.state.keys.find((k) => k.scope === "project")!.id;
      expect((await rotate(projectKeyId, {}, dev.orgKey)).status).toBe(404);
    });

    it("rejects bad body types", async () => {
      const r = await rotate(dev.orgKeyId, { gracePeriodInHours: -1 }, dev.orgKey);
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("gracePeriodInHours");
    });
  });
});
