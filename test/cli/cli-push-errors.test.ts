import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { hasStack, runCli } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "evaltrace-cli-push-"));
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

async function failsWith(args: string[], pattern: RegExp, code = 1, e = env): Promise<void> {
  const r = await runCli(args, e);
  expect(r.code, args.join(" ")).toBe(code);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(hasStack(r.stderr)).toBe(false);
}

describe("evaltrace push-dataset / push-prompt: errors name the file and row", () => {
  it("pushes a good CSV and prints a link the viewer resolves", async () => {
    const csv = file("good.csv", 'input,expectedOutput,context,team\n"Where, exactly?",Here,a|b,core\n"multi\nline",There,,\n');
    const r = await runCli(["push-dataset", "--alias", "faq", csv], env);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain(`${dev.url}/#/datasets/faq`);
    expect(dev.state.datasets.faq!.unversioned).toMatchObject([
      { input: "Where, exactly?", expectedOutput: "Here", context: ["a", "b"], customColumnKeyValues: { team: "core" } },
      { input: "multi\nline", expectedOutput: "There" },
    ]);
  });

  it("a CSV error names the file and the row (and the line when a quoted cell spans lines)", async () => {
    const bad = file("bad-number.csv", "input,tokenCost\nq1,1\nq2,lots\n");
    await failsWith(["push-dataset", "--alias", "x", bad], /bad-number\.csv row 3, column tokenCost: "lots" is not a number/);
    const wide = file("wide.csv", 'input,expectedOutput\n"a\nb",ok\nq,1,2\n');
    await failsWith(["push-dataset", "--alias", "x", wide], /wide\.csv row 3 \(line 4\): 3 cells but the header names 2 columns/);
    const open = file("open.csv", 'input,expectedOutput\nq1,"never closed\nq2,x\n');
    await failsWith(["push-dataset", "--alias", "x", open], /open\.csv line 2: a quoted field opens here and is never closed/);
    const json = file("bad-json.csv", "input,toolsCalled\nq,[{oops}]\n");
    await failsWith(["push-dataset", "--alias", "x", json], /bad-json\.csv row 2, column toolsCalled: not valid JSON/);
  });

  it("a semicolon-separated file gets a hint", async () => {
    const semi = file("excel.csv", "input;expectedOutput\nq1;a1\n");
    await failsWith(["push-dataset", "--alias", "x", semi], /excel\.csv: the header "input;expectedOutput" is one column .*semicolon-separated; save it comma-separated/);
  });

  it("a golden the spec refuses names its row", async () => {
    const noInput = file("no-input.csv", "input,expectedOutput\nq1,a1\n,a2\n");
    await failsWith(["push-dataset", "--alias", "x", noInput], /no-input\.csv row 3/);
  });

  it("a missing file and an unknown type say so", async () => {
    await failsWith(["push-dataset", "--alias", "x", join(dir, "nope.csv")], /cannot read .*nope\.csv: no such file/);
    await failsWith(["push-dataset", "--alias", "x", file("goldens.xlsx", "")], /unsupported file type "\.xlsx"; use \.json, \.jsonl or \.csv/);
    await failsWith(["push-prompt", "--alias", "p", join(dir, "nope.txt")], /cannot read .*nope\.txt: no such file/);
  });

  it("without a key: talks about --api-key / EVALTRACE_API_KEY and exits 1 (usage), for both commands", async () => {
    const csv = file("ok.csv", "input\nq\n");
    const noKey = { EVALTRACE_API_KEY: undefined, SERVICE_API_KEY: undefined, EVALTRACE_BASE_URL: dev.url };
    await failsWith(["push-dataset", "--alias", "x", csv], /^evaltrace push-dataset: no API key: pass --api-key KEY or set EVALTRACE_API_KEY/, 1, noKey);
    await failsWith(["push-prompt", "--alias", "p", csv], /^evaltrace push-prompt: no API key: pass --api-key KEY or set EVALTRACE_API_KEY/, 1, noKey);
  });

  it("a rejection by the service exits 2", async () => {
    const csv = file("ok2.csv", "input\nq\n");
    await failsWith(["push-dataset", "--alias", "x", "--api-key", "svc_local_proj_wrong", csv], /^evaltrace push-dataset: POST \/v2\/datasets: /, 2);
  });

  it("push-prompt prints a link the viewer resolves", async () => {
    const text = file("prompt.txt", "You are {name}.");
    const r = await runCli(["push-prompt", "--alias", "greeter", text], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${dev.url}/#/prompts/greeter`);
  });
});
