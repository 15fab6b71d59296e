import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { Client } from "../../src/index.js";
import { packageRoot } from "../helpers/child.js";
import { hasStack, runCli } from "./run-cli.js";

// The modules live in a directory of their own, where `evaltrace` (the built package) and
// `openai` resolve as in an app's node_modules.
const dir = mkdtempSync(join(tmpdir(), "evaltrace-cli-eval-"));
mkdirSync(join(dir, "node_modules"));
symlinkSync(join(packageRoot, "packages", "evaltrace"), join(dir, "node_modules", "evaltrace"), "dir");
symlinkSync(join(packageRoot, "node_modules", "openai"), join(dir, "node_modules", "openai"), "dir");

let dev: DevServer;
let bare: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  // Scores 1 when the actual output mentions shipping.
  dev = await startDevServer({ port: 0, plan: "team", judge: ({ testCase }) => ({ score: /ship/i.test(String((testCase as { actualOutput?: string }).actualOutput)) ? 1 : 0 }) });
  bare = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  for (const server of [dev, bare]) {
    const client = new Client({ apiKey: server.projectKey, baseUrl: server.url, maxRetries: 0 });
    await client.metrics.create({ name: "Mentions shipping", criteria: "Does it talk about shipping?", evaluationParams: ["actualOutput"], multiTurn: false });
    await client.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Mentions shipping" } }] });
    await client.close();
  }
  env = { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_OPENAI_URL: fake.url };
});
afterAll(async () => {
  await fake.close();
  await bare.close();
  await dev.close();
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** An ESM module whose task asks the real openai package (against the fake server), through a tool span. */
const esm = file(
  "support.mjs",
  `import OpenAI from "openai";
import { observe } from "evaltrace";
import { wrapOpenAI } from "evaltrace/openai";
const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI_URL, maxRetries: 0 }));
const lookup = observe({ type: "tool", name: "lookup_order" }, async (q) => ({ status: "shipped", id: q.orderId }));
export const metricCollection = "support";
export const goldens = [{ input: "When does A-1 ship?" }, { input: "Where is A-2?" }];
export async function task(golden) {
  await lookup({ orderId: "A-1" });
  const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: golden.input }] });
  return r.choices[0].message.content;
}
`,
);

/** A CommonJS module: one answer mentions shipping, one does not, one task throws. */
const cjs = file(
  "mixed.cjs",
  `module.exports = {
  goldens: [{ input: "a" }, { input: "b" }, { input: "c" }, { input: "d" }],
  task: async (golden) => {
    if (golden.input === "d") throw new Error("model down");
    return golden.input === "a" ? "it does not say" : "Orders ship in 2 days.";
  },
};
`,
);

const runsOf = (server: DevServer, identifier: string) => server.state.testRuns.filter((r) => r.identifier === identifier);

describe("evaltrace eval (child process, emulator in strict mode)", () => {
  it("runs an ESM module's task over its goldens, posts the run, prints the summary and passes the gate", async () => {
    const r = await runCli(["eval", esm, "--min-pass-rate", "0.9"], env);
    expect(r.code, r.stderr).toBe(0);
    const [run] = runsOf(dev, "support");
    expect(run!.testCases).toEqual([
      { input: "When does A-1 ship?", actualOutput: "Orders ship in 2 days.", toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1" }, output: { status: "shipped", id: "A-1" } }] },
      { input: "Where is A-2?", actualOutput: "Orders ship in 2 days.", toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1" }, output: { status: "shipped", id: "A-1" } }] },
    ]);
    expect(r.stdout).toContain(`support: 2 golden(s), 2 sent to support, test run ${run!.id}`);
    expect(r.stdout).toMatch(/Mentions shipping\s+2\s+0\s+0\s+0\s+100\.0%\s+1\.00\s+1\.00/);
    expect(r.stdout).toContain("Mentions shipping: 100.0% >= 90.0%");
    // Each golden's trace reached the emulator, with the llm span of the real openai call.
    const traces = Object.values(dev.state.traces).filter((t) => (t!.fields.metadata as Record<string, unknown> | undefined)?.["evaltrace.experiment"] === "support");
    expect(traces).toHaveLength(2);
    expect(traces.every((t) => t!.spans.some((s) => s.type === "llm") && t!.spans.some((s) => s.type === "tool"))).toBe(true);
  });

  it("exits 1 when a CommonJS module's run is under --min-pass-rate (a thrown task fails every metric)", async () => {
    const r = await runCli(["eval", cjs, "--metric-collection", "support", "--identifier", "mixed-run", "--min-pass-rate", "0.9", "--concurrency", "2"], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").at(-1)).toBe("evaltrace eval: a pass rate is under --min-pass-rate 0.9");
    expect(hasStack(r.stderr)).toBe(false);
    expect(runsOf(dev, "mixed-run")[0]!.testCases).toHaveLength(3);
    expect(r.stdout).toContain("tasks: 75.0% < 90.0% FAILED");
    expect(r.stdout).toContain("Mentions shipping: 50.0% < 90.0% FAILED");
    const lenient = await runCli(["eval", cjs, "--metric-collection", "support", "--identifier", "mixed-run-2", "--min-pass-rate", "0.5"], env);
    expect(lenient.code).toBe(0);
  });

  it("pulls the goldens of --dataset (and --dataset-version) instead of the module's", async () => {
    const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url, maxRetries: 0 });
    await client.datasets.push({ alias: "cli-ds", goldens: [{ input: "from the dataset" }] });
    await client.datasets.push({ alias: "cli-ds", version: "1", goldens: [{ input: "version one" }] });
    await client.close();
    const r = await runCli(["eval", cjs, "--metric-collection", "support", "--dataset", "cli-ds", "--dataset-version", "1", "--identifier", "from-ds"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(dev, "from-ds")[0]!.testCases).toEqual([{ input: "version one", actualOutput: "Orders ship in 2 days." }]);
  });

  it("without a judge counts metrics as not judged and gates only the tasks", async () => {
    const bareEnv = { ...env, EVALTRACE_API_KEY: bare.projectKey, EVALTRACE_BASE_URL: bare.url };
    const r = await runCli(["eval", esm, "--min-pass-rate", "1"], bareEnv);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Mentions shipping: not judged (no judge configured (the emulator without a judge answers NOT_JUDGED)), not gated");
    expect(r.stdout).toContain("tasks: 100.0% >= 100.0%");
    const failing = await runCli(["eval", cjs, "--metric-collection", "support", "--min-pass-rate", "0.9"], bareEnv);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("tasks: 75.0% < 90.0% FAILED");
  });

  it("bad input is one line and exit 1: no task, no collection, an unknown collection or dataset, a bad rate", async () => {
    const noTask = file("no-task.mjs", "export const goldens = [{ input: 'a' }];\n");
    const cases: [string[], RegExp][] = [
      [["eval", noTask, "--metric-collection", "support"], /must export a function task\(golden\); it exports goldens/],
      [["eval", cjs], /name the metric collection: --metric-collection C/],
      [["eval", cjs, "--metric-collection", "nope"], /no metric collection named nope/],
      [["eval", esm, "--min-pass-rate", "90"], /--min-pass-rate must be a number from 0 to 1/],
      [["eval", join(dir, "missing.mjs"), "--metric-collection", "support"], /no module/],
    ];
    for (const [args, pattern] of cases) {
      const r = await runCli(args, env);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(hasStack(r.stderr)).toBe(false);
    }
    const unknown = await runCli(["eval", cjs, "--metric-collection", "support", "--dataset", "no-such"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no dataset with alias no-such");
  });
});
