import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";

// Issue 48, item 8: an emulator without --data makes new keys at every start; the key an app
// exported before a restart then gets a 401 that says so, and how to keep keys.

let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});

async function postTrace(url: string, key: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: key }, body: JSON.stringify({ traces: [] }) });
  return { status: res.status, body: await res.text() };
}

describe("an unknown API key at the emulator (issue 48)", () => {
  it("in memory: the 401 asks whether the emulator restarted and names --data", async () => {
    const first = await startDevServer({ port: 0 });
    const oldKey = first.projectKey;
    await first.close();
    dev = await startDevServer({ port: 0 });
    const r = await postTrace(dev.url, oldKey);
    expect(r.status).toBe(401);
    expect(r.body).toContain("unknown API key: did the emulator restart? Its keys live as long as its process unless it runs with --data FILE; take the project key from its banner");
  });

  it("with --data: the key survives a restart, and an unknown one is told to take the banner's key", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "evaltrace-keys-")), "data.json");
    const first = await startDevServer({ port: 0, dataFile: file });
    const key = first.projectKey;
    await first.close();
    dev = await startDevServer({ port: 0, dataFile: file });
    expect(dev.projectKey).toBe(key);
    const r = await postTrace(dev.url, "svc_local_proj_not-a-key");
    expect(r.status).toBe(401);
    expect(r.body).toContain("unknown API key: take the project key from the emulator's banner");
    expect(r.body).not.toContain("restart");
  });
});
