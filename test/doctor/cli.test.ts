import { execFile } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { DoctorReport } from "../../src/doctor/index.js";
import { bin, type CliRun, hasStack } from "../cli/run-cli.js";
import { formats, runChild } from "../helpers/child.js";

let dev: DevServer;
let deadUrl: string;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  deadUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(() => dev.close());

/** An app directory of the format: a package.json and nothing installed. */
function appDir(format: "esm" | "cjs"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `evaltrace-doctor-${format}-`)));
  writeFileSync(join(dir, "package.json"), JSON.stringify(format === "esm" ? { name: "app", type: "module" } : { name: "app" }));
  return dir;
}

/** The CLI run in `cwd` with only PATH (and `env`) set: no key or address from the test's environment. */
function doctorIn(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, "doctor", ...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8", timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe("evaltrace doctor (the CLI, in a child process)", () => {
  for (const format of formats) {
    it(`${format} app, emulator and project key: exit 0, "healthy", the app's format named`, async () => {
      const cwd = appDir(format);
      const r = await doctorIn(cwd, ["--base-url", dev.url, "--api-key", dev.projectKey]);
      expect(r, r.stdout).toMatchObject({ code: 0, stderr: "" });
      expect(r.stdout).toContain("ok    base-url         ");
      expect(r.stdout).toContain("the local emulator (evaltrace dev)");
      expect(r.stdout).toContain("is a valid project key");
      expect(r.stdout).toContain(format === "esm" ? 'the app is ES modules (package.json has "type": "module")' : 'the app is CommonJS (package.json has no "type")');
      expect(r.stdout).toContain("\nhealthy: nothing to fix\n");
    });
  }

  it("the key and address from EVALTRACE_API_KEY / EVALTRACE_BASE_URL: the address and key are the ones checked and both pass", async () => {
    const env = { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url };
    const r = await doctorIn(appDir("esm"), [], env);
    expect(r.stdout).toContain(`service at ${dev.url}`);
    expect(r.stdout).toContain("is a valid project key");
    expect(r.stdout).not.toMatch(/^ERROR (base-url|api-key)/m);
  });

  it("nothing listening and no key: exit 1, ERROR lines for base-url and api-key with their fixes, the verdict counting them", async () => {
    const r = await doctorIn(appDir("cjs"), ["--base-url", deadUrl, "--timeout", "500"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ERROR base-url +http:\/\/127\.0\.0\.1:\d+ is not reachable: connect ECONNREFUSED/m);
    expect(r.stdout).toMatch(/^ERROR api-key +no API key/m);
    expect(r.stdout).toMatch(/^ +fix: start the emulator \(npx evaltrace dev --port \d+\)/m);
    expect(r.stdout).toContain("not healthy: 2 error(s), 0 warning(s)");
    expect(hasStack(r.stdout + r.stderr)).toBe(false);
  });

  it("an organization key: exit 1, the api-key error naming it", async () => {
    const r = await doctorIn(appDir("esm"), ["--base-url", dev.url, "--api-key", dev.orgKey]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ERROR api-key +the key \.\.\.\S{6} is an organization key/m);
  });

  it("--json: the report as JSON, healthy false and exit 1 when broken", async () => {
    const r = await doctorIn(appDir("esm"), ["--base-url", deadUrl, "--json", "--timeout", "500"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(report).toMatchObject({ healthy: false, inApp: false, baseUrl: deadUrl });
    expect(report.findings.find((f) => f.check === "base-url")).toMatchObject({ ok: false, severity: "error" });
    expect(report.findings.find((f) => f.check === "tracer-provider")).toMatchObject({ ok: true, skipped: true });
  });

  it("--cwd names the app's directory; a bad --timeout or --base-url is one line on stderr and exit 1", async () => {
    const app = appDir("esm");
    const r = await doctorIn(tmpdir(), ["--cwd", app, "--base-url", dev.url, "--api-key", dev.projectKey]);
    expect(r.stdout).toContain(`app in ${app}`);
    for (const args of [["--timeout", "soon"], ["--base-url", "localhost:4680"]]) {
      const bad = await doctorIn(app, args);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim().split("\n")).toHaveLength(1);
      expect(bad.stderr).toMatch(/^evaltrace doctor: (--timeout|--base-url) must be/);
    }
  });
});

describe("doctor() in the app's process (ESM and CommonJS builds)", () => {
  for (const format of formats) {
    it(`${format}: configured and instrumented except anthropic: healthy, zero-code on, anthropic noted as installed and turned off, the ${format === "esm" ? "ESM" : "CommonJS"} build named`, async () => {
      const source = `${
        format === "esm"
          ? 'import { configure, shutdown } from "evaltrace"; import { instrument } from "evaltrace/instrument"; import { doctor } from "evaltrace/doctor";'
          : 'const { configure, shutdown } = require("evaltrace"); const { instrument } = require("evaltrace/instrument"); const { doctor } = require("evaltrace/doctor");'
      }
configure({ apiKey: process.env.KEY, baseUrl: process.env.URL });
instrument({ anthropic: false });
const report = await doctor();
console.log(JSON.stringify(report));
await shutdown();`;
      const child = runChild(format, source, { KEY: dev.projectKey, URL: dev.url });
      const done = await child.finished;
      expect(done.code, done.stderr).toBe(0);
      const report = JSON.parse(done.stdout) as DoctorReport;
      const line = (check: string) => report.findings.filter((f) => f.check === check);
      expect(report.findings.filter((f) => !f.ok && f.severity !== "info")).toEqual([]);
      expect(report).toMatchObject({ healthy: true, inApp: true });
      expect(line("integrations")[0]!.message).toMatch(/^zero-code instrumentation on for openai, google-genai/);
      expect(line("integrations")[1]).toMatchObject({ ok: false, severity: "info", message: expect.stringMatching(/^installed but turned off: anthropic \(@anthropic-ai\/sdk \d/) });
      expect(line("exit-flush")[0]!.message).toBe("the process flushes at exit: hooks on beforeExit, SIGTERM and SIGINT");
      expect(line("module-format")[0]!.message).toContain(`evaltrace runs as its ${format === "esm" ? "ESM" : "CommonJS"} build here`);
    });
  }
});
