import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { bin, type CliRun } from "../cli/run-cli.js";

// Issue 48: what the doctor says to a newcomer's mistakes names the value and the fix, once.

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

function appDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "evaltrace-first-contact-")));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", type: "module" }));
  return dir;
}

function doctorIn(cwd: string, env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, "doctor"], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8", timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const findingLines = (stdout: string) => stdout.split("\n").filter((l) => /^(ok|skip|ERROR|WARN|note)\s/.test(l));

describe("evaltrace doctor: first contact (issue 48)", () => {
  it("EVALTRACE_BASE_URL without a scheme: one config error naming the value and the address meant, base-url not checked, no word of EVALTRACE_TRACING_ENABLED, exit 1", async () => {
    const port = new URL(dev.url).port;
    const r = await doctorIn(appDir(), { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: `localhost:${port}` });
    expect(r.code).toBe(1);
    const lines = findingLines(r.stdout);
    expect(lines.filter((l) => l.startsWith("ERROR"))).toEqual([`ERROR config           environment variable EVALTRACE_BASE_URL="localhost:${port}" is not an http(s) URL: tracing is off and nothing will be sent`]);
    expect(r.stdout).toContain(`fix: set EVALTRACE_BASE_URL=http://localhost:${port} (with http:// or https://), or unset it for the default`);
    expect(r.stdout).not.toContain("EVALTRACE_TRACING_ENABLED");
    expect(lines.find((l) => l.includes("base-url"))).toMatch(/^skip\s+base-url\s+not checked: EVALTRACE_BASE_URL is not an http\(s\) URL/);
    // The default address the SDK fell back to is neither checked nor reported as the service.
    expect(r.stdout).toContain(`service at localhost:${port}`);
    expect(r.stdout).not.toContain("answers: the local emulator");
  });

  it('a mistyped scheme ("htp://"): the fix names the http:// address', async () => {
    const r = await doctorIn(appDir(), { EVALTRACE_API_KEY: "k", EVALTRACE_BASE_URL: "htp://127.0.0.1:4680" });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("fix: set EVALTRACE_BASE_URL=http://127.0.0.1:4680 (with http:// or https://)");
  });

  it("a base URL ending in /v1: an error saying to drop /v1, and the emulator at the address meant is named the emulator, not the service", async () => {
    const r = await doctorIn(appDir(), { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: `${dev.url}/v1` });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`ERROR base-url         the base URL ${dev.url}/v1 ends in /v1, but evaltrace adds /v1/... to every path itself (requests would go to ${dev.url}/v1/v1/traces)`);
    expect(r.stdout).toContain(`fix: set EVALTRACE_BASE_URL (or configure({ baseUrl })) to ${dev.url}`);
    expect(r.stdout).toContain(`${dev.url} answers: the local emulator (evaltrace dev)`);
    expect(r.stdout).not.toContain("taken for the service");
    expect(r.stdout).toContain("is a valid project key");
  });

  it("a spool path that is a regular file: an error saying it is a file, not a directory, and that spooling will be off", async () => {
    const cwd = appDir();
    const file = join(cwd, "spool-file");
    writeFileSync(file, "x");
    const r = await doctorIn(cwd, { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, EVALTRACE_SPOOL_DIR: file });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`ERROR spool            the spool path ${file} is a file, not a directory: spooling will be off`);
    expect(r.stdout).not.toContain("exists but cannot be read");
  });

  it("a spool path under a regular file: ENOTDIR named with the file, never that the path exists", async () => {
    const cwd = appDir();
    const file = join(cwd, "spool-file");
    writeFileSync(file, "x");
    const r = await doctorIn(cwd, { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, EVALTRACE_SPOOL_DIR: join(file, "sub") });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`ERROR spool            the spool path ${join(file, "sub")} lies under ${file}, which is not a directory (ENOTDIR): spooling will be off`);
    expect(r.stdout).not.toContain("exists");
  });

  it("a variable's fix points at the configuration page by its absolute address (the package carries no docs/)", async () => {
    const r = await doctorIn(appDir(), { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, EVALTRACE_SAMPLE_RATE: "50%" });
    expect(r.stdout).toContain("fix: fix or unset the variable (https://github.com/evaltrace/evaltrace/blob/main/docs/configuration.md lists them)");
  });

  it("a spool directory that does not exist yet: fine (made at the first write)", async () => {
    const cwd = appDir();
    mkdirSync(join(cwd, "data"));
    const r = await doctorIn(cwd, { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, EVALTRACE_SPOOL_DIR: join(cwd, "data", "spool") });
    expect(r.stdout).toContain(`ok    spool            the spool at ${join(cwd, "data", "spool")} is empty`);
  });
});
