import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";

// Issue 47, point 4: the API keys live in `<data file>.keys` (0600), not in the journal, so that
// a journal copied elsewhere or attached to a bug report holds no key.
const posix = process.platform !== "win32";
const dirs: string[] = [];
let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "evaltrace-keys-"));
  dirs.push(d);
  return d;
}
const mode = (path: string) => statSync(path).mode & 0o7777;
const t0 = "2026-01-01T00:00:00.000Z";
const trace = (uuid: string) => ({ uuid, name: "x", startTime: t0, endTime: t0, baseSpans: [{ uuid: `${uuid}-s`, name: "s", startTime: t0, endTime: t0 }] });
/** A call that needs an organization key (re-validating the organization key itself). */
const orgCall = (api: ReturnType<typeof apiFor>, key: string) => api("PUT", `/v2/organization/api-keys/${dev!.orgKeyId}`, { valid: true }, key);
const restart = async (file: string) => {
  await dev?.close();
  dev = await startDevServer({ port: 0, dataFile: file });
  return apiFor(dev);
};

/** Starts on `file`, writes a trace, rotates the organization key with a grace period (a new value beside the old one); returns the three key values. */
async function writesAndARotation(file: string): Promise<{ project: string; org: string; rotated: string }> {
  const api = await restart(file);
  const project = dev!.projectKey;
  const org = dev!.orgKey;
  expect((await api("POST", "/v1/traces", trace("a"))).status).toBe(200);
  const r = await api("POST", `/v1/organization/api-keys/${dev!.orgKeyId}/rotate`, { gracePeriodInHours: 24 }, org);
  expect(r.status).toBe(200);
  const rotated = (r.body.data as { apiKey: { shadowValue: string } }).apiKey.shadowValue;
  expect(rotated).toMatch(/^svc_local_org_/);
  expect((await orgCall(api, rotated)).status).toBe(200);
  expect((await api("POST", "/v1/traces", trace("b"))).status).toBe(200);
  return { project, org, rotated };
}

describe("the --data keys file", () => {
  it("after writes and a rotation, the journal holds none of the key values and <data>.keys holds them all, mode 0600", async () => {
    const file = join(tempDir(), "dev.jsonl");
    const values = Object.values(await writesAndARotation(file));
    const check = () => {
      const journal = readFileSync(file, "latin1");
      for (const v of values) expect(journal).not.toContain(v);
      const keys = readFileSync(`${file}.keys`, "utf8");
      for (const v of values) expect(keys).toContain(v);
      if (posix) expect(mode(`${file}.keys`)).toBe(0o600);
    };
    check(); // while it runs
    await dev!.close();
    dev = undefined;
    check(); // and after close wrote the keys' last use
  });

  it("a restart loads the same keys from the keys file: the banner's project key is unchanged and the rotation's new value still works", async () => {
    const file = join(tempDir(), "dev.jsonl");
    const { project, org, rotated } = await writesAndARotation(file);
    const api = await restart(file);
    expect(existsSync(`${file}.keys`)).toBe(true);
    expect(dev!.projectKey).toBe(project);
    expect(dev!.orgKey).toBe(org);
    expect((await orgCall(api, rotated)).status).toBe(200);
    expect(Object.keys(dev!.state.traces).sort()).toEqual(["a", "b"]);
  });

  it("a journal copied elsewhere without its keys file brings no key: the emulator starts with new keys and the traces", async () => {
    const file = join(tempDir(), "dev.jsonl");
    const { project, org } = await writesAndARotation(file);
    await dev!.close();
    dev = undefined;
    const copy = join(tempDir(), "attached.jsonl");
    copyFileSync(file, copy);
    await restart(copy);
    expect(dev!.projectKey).not.toBe(project);
    expect(dev!.orgKey).not.toBe(org);
    expect(Object.keys(dev!.state.traces).sort()).toEqual(["a", "b"]);
  });

  it("loads a journal of the previous version (keys on its meta line), moves its keys to the keys file and rewrites the journal without them", async () => {
    const file = join(tempDir(), "old.jsonl");
    const project = "svc_local_proj_previousVersionProjectKey000000000000";
    const org = "svc_local_org_previousVersionOrgKey00000000000000000";
    const shadow = "svc_local_org_previousVersionPendingRotation000000000";
    const retired = "svc_local_org_previousVersionRetiredValue000000000000";
    const key = (id: number, scope: "project" | "org", value: string) => ({
      id,
      name: `dev ${scope} key`,
      scope,
      valid: true,
      value,
      shadowValue: null as string | null,
      rotatesAt: null as number | null,
      expiresAt: null,
      createdAt: Date.parse(t0),
      lastUsed: Date.parse(t0),
      retired: [] as string[],
    });
    const projectKey = key(1, "project", project);
    const orgKey = { ...key(2, "org", org), shadowValue: shadow, rotatesAt: Date.now() + 86_400_000, retired: [retired] };
    // The previous version's format: the keys on the meta line, then a trace line.
    const stored = { uuid: "old", fields: { name: "x", startTime: t0, endTime: t0 }, spans: [] };
    writeFileSync(
      file,
      `${JSON.stringify({ t: "meta", v: { seq: 0, keys: [projectKey, orgKey], metrics: [], collections: [] } })}\n${JSON.stringify({ t: "trace", v: stored })}\n`,
      { mode: 0o600 },
    );
    let api = await restart(file);
    expect(dev!.projectKey).toBe(project);
    expect(dev!.orgKey).toBe(org);
    for (const v of [project, org, shadow, retired]) expect(readFileSync(file, "latin1")).not.toContain(v); // rewritten at start
    expect((await orgCall(api, shadow)).status).toBe(200);
    expect((await api("POST", "/v1/traces", trace("new"))).status).toBe(200);
    const journal = readFileSync(file, "latin1");
    for (const v of [project, org, shadow, retired]) expect(journal).not.toContain(v);
    const keys = readFileSync(`${file}.keys`, "utf8");
    for (const v of [project, org, shadow, retired]) expect(keys).toContain(v);
    if (posix) expect(mode(`${file}.keys`)).toBe(0o600);
    api = await restart(file);
    expect(dev!.projectKey).toBe(project);
    expect((await orgCall(api, shadow)).status).toBe(200);
    expect(Object.keys(dev!.state.traces).sort()).toEqual(["new", "old"]);
  });

  it("a key's use alone does not rewrite the keys file per request; its last use is written at close and loaded on restart", async () => {
    const file = join(tempDir(), "dev.jsonl");
    let now = Date.parse("2026-06-01T00:00:00Z");
    dev = await startDevServer({ port: 0, dataFile: file, clock: () => now });
    const api = apiFor(dev);
    const before = readFileSync(`${file}.keys`, "utf8");
    now += 60_000;
    expect((await api("GET", "/v1/metrics")).status).toBe(200);
    expect(dev.state.keys.find((k) => k.scope === "project")!.lastUsed).toBe(now);
    expect(readFileSync(`${file}.keys`, "utf8")).toBe(before);
    await restart(file);
    expect(dev!.state.keys.find((k) => k.scope === "project")!.lastUsed).toBe(now);
  });

  it.skipIf(!posix)("refuses a keys file that is a symbolic link, naming it, and leaves the file it points to alone", async () => {
    const dir = tempDir();
    const target = join(dir, "elsewhere.txt");
    writeFileSync(target, "not keys\n");
    symlinkSync(target, join(dir, "dev.jsonl.keys"));
    await expect(startDevServer({ port: 0, dataFile: join(dir, "dev.jsonl") })).rejects.toThrow(/dev\.jsonl\.keys.*symbolic link/);
    expect(readFileSync(target, "utf8")).toBe("not keys\n");
  });
});
