import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { apiFor } from "../helpers/api.js";
import { MODES } from "./modes.js";

describe.each(MODES)("prompt reads, $mode mode", ({ strict }) => {
  let dev: DevServer;
  let api: ReturnType<typeof apiFor>;
  beforeEach(async () => {
    dev = await startDevServer({ port: 0, strict });
    api = apiFor(dev);
  });
  afterEach(() => dev.close());

  const push = async (body: Record<string, unknown>) => (await api("POST", "/v2/prompts", body)).body.data as { promptId: string; hash: string };

  it("GET commits/latest answers the newest commit of main with the vendor's PromptHttpResponse fields", async () => {
    await push({ alias: "greet", text: "Hello {name}" });
    const second = await push({ alias: "greet", text: "Hi {{ name }}", interpolationType: "JINJA", modelSettings: { name: "gpt-4o", temperature: 0.2 }, outputType: "TEXT" });
    const r = await api("GET", "/v1/prompts/greet/commits/latest");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        id: second.promptId,
        hash: second.hash,
        version: null,
        label: null,
        branch: "main",
        type: "TEXT",
        text: "Hi {{ name }}",
        messages: null,
        interpolationType: "JINJA",
        modelSettings: { name: "gpt-4o", temperature: 0.2 },
        outputType: "TEXT",
        outputSchema: null,
        tools: null,
      },
    });
  });

  it("GET commits/:hash answers that commit; a messages prompt has type LIST and FSTRING by default", async () => {
    const first = await push({ alias: "chat", messages: [{ role: "system", content: "Be {tone}" }] });
    await push({ alias: "chat", messages: [{ role: "user", content: "later" }] });
    const r = await api("GET", `/v1/prompts/chat/commits/${first.hash}`);
    expect(r.body.data).toMatchObject({ hash: first.hash, type: "LIST", text: null, messages: [{ role: "system", content: "Be {tone}" }], interpolationType: "FSTRING" });
  });

  it("?branch= picks the newest commit of that branch, and a hash must be on the branch named", async () => {
    const main = await push({ alias: "p", text: "main" });
    const exp = await push({ alias: "p", text: "exp", branch: "experiment" });
    expect((await api("GET", "/v1/prompts/p/commits/latest?branch=experiment")).body.data).toMatchObject({ hash: exp.hash, text: "exp", branch: "experiment" });
    expect((await api("GET", "/v1/prompts/p/commits/latest")).body.data).toMatchObject({ hash: main.hash, text: "main" });
    // A new branch starts from main's history: main's commit is on it, the experiment's is not on main.
    expect((await api("GET", `/v1/prompts/p/commits/${main.hash}?branch=experiment`)).status).toBe(200);
    expect((await api("GET", `/v1/prompts/p/commits/${exp.hash}?branch=main`)).status).toBe(404);
    expect((await api("GET", "/v1/prompts/p/commits/latest?branch=nope")).body.error).toContain("no branch nope");
  });

  it("404s name the unknown alias, hash, version and label", async () => {
    expect((await api("GET", "/v1/prompts/nope/commits/latest")).body).toMatchObject({ success: false, error: expect.stringContaining("no prompt with alias nope") });
    await push({ alias: "p", text: "t" });
    expect((await api("GET", "/v1/prompts/p/commits/abc")).body.error).toContain("no commit abc");
    expect((await api("GET", "/v1/prompts/p/versions/latest")).body.error).toContain("no version yet");
    expect((await api("GET", "/v1/prompts/p/versions/00.00.09")).body.error).toContain("no version 00.00.09");
    expect((await api("GET", "/v1/prompts/p/labels/production")).status).toBe(404);
  });

  it("POST versions releases a commit as 00.00.01, 00.00.02; GET versions/:version and versions/latest answer it", async () => {
    const a = await push({ alias: "p", text: "one" });
    const b = await push({ alias: "p", text: "two" });
    const v1 = await api("POST", "/v1/prompts/p/versions", { hash: a.hash });
    expect(v1.body).toEqual({ success: true, data: { version: "00.00.01", hash: a.hash } });
    const v2 = await api("POST", "/v1/prompts/p/versions", {});
    expect(v2.body.data).toEqual({ version: "00.00.02", hash: b.hash });
    expect((await api("GET", "/v1/prompts/p/versions/00.00.01")).body.data).toMatchObject({ hash: a.hash, text: "one", version: "00.00.01", label: null });
    expect((await api("GET", "/v1/prompts/p/versions/latest")).body.data).toMatchObject({ hash: b.hash, version: "00.00.02" });
  });

  it("PUT labels/:label points a label at a version; GET labels/:label answers it with its version and moves with it", async () => {
    const a = await push({ alias: "p", text: "one" });
    await api("POST", "/v1/prompts/p/versions", { hash: a.hash });
    const set = await api("PUT", "/v1/prompts/p/labels/production", { version: "00.00.01" });
    expect(set.body).toEqual({ success: true, data: { label: "production", version: "00.00.01", hash: a.hash } });
    expect((await api("GET", "/v1/prompts/p/labels/production")).body.data).toMatchObject({ hash: a.hash, text: "one", version: "00.00.01", label: "production" });
    const b = await push({ alias: "p", text: "two" });
    await api("POST", "/v1/prompts/p/versions", { hash: b.hash });
    await api("PUT", "/v1/prompts/p/labels/production", { version: "latest" });
    expect((await api("GET", "/v1/prompts/p/labels/production")).body.data).toMatchObject({ hash: b.hash, text: "two", version: "00.00.02" });
    expect((await api("PUT", "/v1/prompts/p/labels/staging", { version: "09.00.00" })).status).toBe(404);
    expect((await api("PUT", "/v1/prompts/p/labels/staging", {})).status).toBe(400);
  });

  it("reads need the project key", async () => {
    await push({ alias: "p", text: "t" });
    expect((await api("GET", "/v1/prompts/p/commits/latest", undefined, null)).status).toBe(401);
  });

  it(strict ? "strict: rejects unknown query parameters and body fields, and ?name= for the branch" : "lenient: ignores unknown query parameters and reads the branch from ?name=", async () => {
    await push({ alias: "p", text: "main" });
    await push({ alias: "p", text: "exp", branch: "x" });
    const unknown = await api("GET", "/v1/prompts/p/commits/latest?colour=red");
    const byName = await api("GET", "/v1/prompts/p/commits/latest?name=x");
    const extra = await api("POST", "/v1/prompts/p/versions", { hash: "latest", note: "n" });
    if (strict) {
      expect(unknown.body.error).toContain("unknown query parameter colour");
      expect(byName.status).toBe(400);
      expect(extra.body.error).toContain("unknown field body.note");
    } else {
      expect(unknown.status).toBe(200);
      expect(byName.body.data).toMatchObject({ text: "exp" });
      expect(extra.status).toBe(200);
    }
  });
});

describe("prompt versions and labels on disk", () => {
  it("survive a restart of the emulator with the same data directory", async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), "prompt-reads-")), "store.jsonl");
    let dev = await startDevServer({ port: 0, strict: true, dataFile });
    let api = apiFor(dev);
    const { hash } = (await api("POST", "/v2/prompts", { alias: "p", text: "kept" })).body.data as { hash: string };
    await api("POST", "/v1/prompts/p/versions", { hash });
    await api("PUT", "/v1/prompts/p/labels/production", { version: "00.00.01" });
    await dev.close();
    dev = await startDevServer({ port: 0, strict: true, dataFile });
    api = apiFor(dev);
    try {
      expect((await api("GET", "/v1/prompts/p/labels/production", undefined, dev.projectKey)).body.data).toMatchObject({ hash, text: "kept", version: "00.00.01", label: "production" });
    } finally {
      await dev.close();
    }
  });
});
