import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { hasStack, runCli } from "./run-cli.js";

// Issue 48: push-prompt checks a template before it sends it: a JINJA template that does not
// parse is refused with the engine's message, and placeholders written for another
// interpolation type than the prompt's are one warning naming the flag that fixes it.

const dir = mkdtempSync(join(tmpdir(), "evaltrace-push-prompt-"));
let dev: DevServer;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  env = { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url };
});
afterAll(() => dev.close());

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const commitsOf = (alias: string) => Object.values(dev.state.prompts[alias]?.commits ?? {}).map((c) => c.content);

describe("evaltrace push-prompt: templates checked before they are sent (issue 48)", () => {
  it("an invalid JINJA template: exit 1, one line naming the file and the engine's message, nothing pushed", async () => {
    const path = file("bad.json", JSON.stringify({ text: "Hello {% if name %}{{ name }}", interpolationType: "JINJA" }));
    const r = await runCli(["push-prompt", "--alias", "bad-jinja", path], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^evaltrace push-prompt: ${path.replaceAll("/", "\\/")}: invalid JINJA template: `));
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(hasStack(r.stderr)).toBe(false);
    expect(dev.state.prompts["bad-jinja"]).toBeUndefined();
  });

  it("a message list written with {{var}} and no type: pushed, with one warning naming --interpolation-type MUSTACHE", async () => {
    const path = file("mustache.json", JSON.stringify([{ role: "user", content: "Hi {{name}}" }]));
    const r = await runCli(["push-prompt", "--alias", "mustache-default", path], env);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split("\n")).toEqual([
      `evaltrace push-prompt: warning: ${path}: the template's placeholders look like MUSTACHE, but the prompt's interpolationType is FSTRING: they would not render as variables; pass --interpolation-type MUSTACHE (or set "interpolationType" in the file)`,
    ]);
  });

  it("--interpolation-type MUSTACHE: pushed as MUSTACHE, no warning", async () => {
    const path = file("mustache2.json", JSON.stringify([{ role: "user", content: "Hi {{name}}" }]));
    const r = await runCli(["push-prompt", "--alias", "mustache-flag", "--interpolation-type", "MUSTACHE", path], env);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(commitsOf("mustache-flag").map((c) => c.interpolationType)).toEqual(["MUSTACHE"]);
  });

  it("an unknown --interpolation-type, or one that contradicts the file: exit 1, one line", async () => {
    const path = file("typed.json", JSON.stringify({ text: "Hi {name}", interpolationType: "FSTRING" }));
    const unknown = await runCli(["push-prompt", "--alias", "x", "--interpolation-type", "HANDLEBARS", path], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--interpolation-type must be one of MUSTACHE, MUSTACHE_WITH_SPACE, FSTRING, DOLLAR_BRACKETS, JINJA; got HANDLEBARS/);
    const both = await runCli(["push-prompt", "--alias", "x", "--interpolation-type", "JINJA", path], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/sets "interpolationType": "FSTRING" and --interpolation-type says JINJA: give one/);
  });

  it("a plain FSTRING text: pushed, no warning", async () => {
    const r = await runCli(["push-prompt", "--alias", "plain", file("plain.txt", "You are {name}. JSON looks like {\"a\": 1}.")], env);
    expect(r).toMatchObject({ code: 0, stderr: "" });
  });
});
