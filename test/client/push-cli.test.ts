import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";

const bin = fileURLToPath(new URL("../../packages/evaltrace/bin/evaltrace.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "evaltrace-cli-"));
let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Runs the CLI in a child process (the emulator keeps serving in this one). */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c;
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c;
  });
  return new Promise((r) => child.on("close", (code) => r({ code, stdout, stderr })));
}

describe("evaltrace push-dataset", () => {
  it("pushes JSONL in chunks with a progress bar", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => JSON.stringify({ input: `q${i}`, expectedOutput: `a${i}` }));
    const r = await cli("push-dataset", "--alias", "jsonl", "--chunk-size", "10", file("g.jsonl", `${lines.join("\n")}\n`));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("pushed 25 golden(s) to dataset jsonl");
    expect(r.stdout).toContain("in 3 request(s)");
    expect(r.stderr.trim().split("\n")).toEqual([
      `pushing to jsonl [############..................] 10/25`,
      `pushing to jsonl [########################......] 20/25`,
      `pushing to jsonl [##############################] 25/25`,
    ]);
    expect(dev.state.datasets.jsonl!.unversioned).toHaveLength(25);
  });

  it("pushes CSV, mapping known columns and keeping the others as custom columns", async () => {
    const csv = 'input,expectedOutput,context,tags,tokenCost,team\n"Where, exactly?","Here ""now""",a|b,x,0.5,support\nq2,a2,"[""c""]",,,\n';
    const r = await cli("push-dataset", "--alias", "csv", "--finalized", "false", file("g.csv", csv));
    expect(r.code).toBe(0);
    expect(dev.state.datasets.csv!.unversioned).toEqual([
      { input: "Where, exactly?", expectedOutput: 'Here "now"', context: ["a", "b"], tags: ["x"], tokenCost: 0.5, customColumnKeyValues: { team: "support" }, finalized: false },
      { input: "q2", expectedOutput: "a2", context: ["c"], finalized: false },
    ]);
  });

  it("exits non-zero naming the line of a bad golden, and sends nothing", async () => {
    const before = Object.keys(dev.state.datasets).length;
    const r = await cli("push-dataset", "--alias", "bad", file("bad.jsonl", '{"input":"ok"}\n\n{"input": 3}\n'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("line 3");
    expect(r.stderr).toContain("input must be a string");
    expect(Object.keys(dev.state.datasets).length).toBe(before);
    const missing = await cli("push-dataset", file("x.jsonl", "{}"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--alias is required");
    const badJson = await cli("push-dataset", "--alias", "x", file("x.json", "{nope"));
    expect(badJson.stderr).toContain("not valid JSON");
    const kind = await cli("push-dataset", "--alias", "x", file("x.txt", "hi"));
    expect(kind.stderr).toContain("unsupported file type");
  });

  it("exits 2 with the service's message when the service rejects the push", async () => {
    const r = await cli("push-dataset", "--alias", "jsonl", "--version", "1", file("v.json", '[{"input":"q"}]'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Team plan");
    expect(r.stderr).not.toContain(dev.projectKey);
  });
});

describe("evaltrace push-prompt", () => {
  it("pushes a text file and a JSON messages file to a branch", async () => {
    const text = await cli("push-prompt", "--alias", "greet", file("p.txt", "Hello {name}"));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pushed commit \w+ to prompt greet .* on main/);
    const msgs = await cli("push-prompt", "--alias", "greet", "--branch", "dev", file("p.json", '[{"role":"system","content":"Be brief"}]'));
    expect(msgs.code).toBe(0);
    expect(dev.state.prompts.greet!.branches.dev).toHaveLength(2);
  });

  it("rejects a prompt with text and messages before sending", async () => {
    const r = await cli("push-prompt", "--alias", "x", file("both.json", '{"text":"t","messages":[{"role":"user","content":"c"}]}'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not both");
    expect(dev.state.prompts.x).toBeUndefined();
  });
});
