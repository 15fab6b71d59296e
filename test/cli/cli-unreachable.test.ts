import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BASE_URL } from "../../src/config/options.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { EXIT } from "../../src/cli/exit-codes.js";
import { hasStack, runCli } from "./run-cli.js";
import { closedAddress } from "../helpers/closed-address.js";

const dir = mkdtempSync(join(tmpdir(), "evaltrace-cli-unreachable-"));
const prompt = join(dir, "prompt.txt");
writeFileSync(prompt, "Answer {question}");
const csv = join(dir, "goldens.csv");
writeFileSync(csv, "input\nq\n");
const evalModule = join(dir, "run.mjs");
writeFileSync(evalModule, 'export const goldens = [{ input: "q" }];\nexport const metricCollection = "c";\nexport async function task() { return "a"; }\n');

/** No variable of ours from the test runner's environment. */
const clean = { EVALTRACE_API_KEY: undefined, EVALTRACE_BASE_URL: undefined, SERVICE_API_KEY: undefined, SERVICE_BASE_URL: undefined };

describe("evaltrace push-* / eval: the default address in --help, and a service nobody answers for", () => {
  it(`--help of push-dataset, push-prompt and eval names the default address ${DEFAULT_BASE_URL} and EVALTRACE_BASE_URL, never "the live service"`, async () => {
    for (const command of ["push-dataset", "push-prompt", "eval"]) {
      const r = await runCli([command, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`--base-url URL\\s+service URL \\(default: EVALTRACE_BASE_URL, else ${DEFAULT_BASE_URL.replace(/\./g, "\\.")},`));
      expect(r.stdout).toContain("(default: the EVALTRACE_API_KEY environment variable)");
      expect(r.stdout).not.toContain("live service");
      expect(r.stdout).not.toContain("SERVICE_");
    }
    const dev = await runCli(["dev", "--help"]);
    expect(dev.stdout).toContain(`(default ${new URL(DEFAULT_BASE_URL).port}; 0 picks a free one)`);
  });

  it(`nothing listening: exit ${EXIT.unreachable} (not ${EXIT.rejected}, "refused") within 6 s, one line naming the address, for push-dataset, push-prompt and eval`, async () => {
    const url = await closedAddress();
    for (const args of [
      ["push-dataset", "--alias", "d", csv],
      ["push-prompt", "--alias", "p", prompt],
      ["eval", evalModule],
    ]) {
      const started = Date.now();
      const r = await runCli(args, { ...clean, EVALTRACE_API_KEY: "svc_local_proj_x", EVALTRACE_BASE_URL: url });
      const took = Date.now() - started;
      expect(r.code, args[0]).toBe(EXIT.unreachable);
      // Node's own start takes most of it on a loaded machine; the retries were 12 s before.
      expect(took, args[0]).toBeLessThan(6_000);
      expect(r.stderr).toMatch(new RegExp(`^evaltrace ${args[0]}: could not reach the service at ${url.replace(/\./g, "\\.")} \\(.*ECONNREFUSED.*\\); start the emulator with \`evaltrace dev\`, or pass --base-url URL or set EVALTRACE_BASE_URL\\n$`));
      expect(hasStack(r.stderr)).toBe(false);
    }
  });

  it("--base-url that is no URL: exit 1 naming it", async () => {
    const r = await runCli(["push-prompt", "--alias", "p", "--base-url", "localhost:4680", prompt], { ...clean, EVALTRACE_API_KEY: "k" });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toBe(`evaltrace push-prompt: --base-url must be an http(s) URL such as ${DEFAULT_BASE_URL}; got "localhost:4680"\n`);
  });
});

describe("evaltrace push-*: the deprecated SERVICE_ variables", () => {
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer({ port: 0 });
  });
  afterAll(() => dev.close());

  it("SERVICE_API_KEY and SERVICE_BASE_URL still work, with one deprecation warning each naming the EVALTRACE_ variable", async () => {
    const r = await runCli(["push-prompt", "--alias", "old-names", prompt], { ...clean, SERVICE_API_KEY: dev.projectKey, SERVICE_BASE_URL: dev.url });
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toContain("to prompt old-names");
    expect(r.stderr.trim().split("\n").sort()).toEqual([
      "[evaltrace] environment variable SERVICE_API_KEY is deprecated: set EVALTRACE_API_KEY instead (SERVICE_API_KEY is still read when EVALTRACE_API_KEY is not set)",
      "[evaltrace] environment variable SERVICE_BASE_URL is deprecated: set EVALTRACE_BASE_URL instead (SERVICE_BASE_URL is still read when EVALTRACE_BASE_URL is not set)",
    ]);
  });

  it("EVALTRACE_ names win over SERVICE_ names, with no warning", async () => {
    const r = await runCli(["push-prompt", "--alias", "new-names", prompt], {
      ...clean,
      EVALTRACE_API_KEY: dev.projectKey,
      EVALTRACE_BASE_URL: dev.url,
      SERVICE_API_KEY: "svc_wrong",
      SERVICE_BASE_URL: "http://127.0.0.1:1",
    });
    expect(r).toMatchObject({ code: EXIT.ok, stderr: "" });
  });
});
