import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { Client } from "../../src/index.js";
import { packageRoot } from "../helpers/child.js";
import { hasStack, runCli } from "./run-cli.js";

// `evaltrace eval` as a release gate (child processes over the built dist, emulator in strict
// mode): an errored judge or scorer fails the run with its own exit code, a baseline run is
// compared case by case, and modules load as TypeScript, from a directory, or point at the
// user's line when they cannot.
const dir = mkdtempSync(join(tmpdir(), "evaltrace-cli-gate-"));
mkdirSync(join(dir, "node_modules"));
symlinkSync(join(packageRoot, "packages", "evaltrace"), join(dir, "node_modules", "evaltrace"), "dir");
// tsx, as an app on Node 20 installs it to run TypeScript eval modules (Node 22.18+ strips types itself).
symlinkSync(join(packageRoot, "node_modules", "tsx"), join(dir, "node_modules", "tsx"), "dir");

const ECONNREFUSED = "cannot reach the judge: connect ECONNREFUSED 127.0.0.1:9";
let judging: DevServer;
let down: DevServer;
let bare: DevServer;
beforeAll(async () => {
  // Scores 0.9 when the output mentions shipping, 0.2 otherwise.
  judging = await startDevServer({
    port: 0,
    strict: true,
    judge: ({ testCase }) => {
      const out = String((testCase as { actualOutput?: string }).actualOutput);
      return { score: /ship/i.test(out) ? 0.9 : 0.2, reason: /ship/i.test(out) ? "gives a date" : "no date" };
    },
  });
  down = await startDevServer({
    port: 0,
    strict: true,
    judge: () => {
      throw new Error(ECONNREFUSED);
    },
  });
  bare = await startDevServer({ port: 0, strict: true });
  for (const server of [judging, down, bare]) {
    const client = new Client({ apiKey: server.projectKey, baseUrl: server.url, maxRetries: 0 });
    await client.metrics.create({ name: "Correctness", criteria: "Does it say when it ships?", evaluationParams: ["actualOutput"], multiTurn: false });
    await client.metricCollections.create({ name: "support", multiTurn: false, metricSettings: [{ metric: { name: "Correctness" }, threshold: 0.5, includeReason: true }] });
    await client.close();
  }
});
afterAll(async () => {
  await Promise.all([judging.close(), down.close(), bare.close()]);
});

const envOf = (server: DevServer) => ({ EVALTRACE_API_KEY: server.projectKey, EVALTRACE_BASE_URL: server.url });

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const support = file(
  "support.mjs",
  `export const metricCollection = "support";
export const goldens = [{ input: "When does A-1 ship?" }, { input: "Where is A-2?" }];
export async function task(golden) {
  return golden.input.includes("ship") ? "It ships in 2 days." : process.env.ANSWER_A2 ?? "Orders ship in 2 days.";
}
`,
);

describe("evaltrace eval gates on errored verdicts", () => {
  it("exits 4 when the judge is down, printing the error once, even when no pass rate is gated", async () => {
    const r = await runCli(["eval", support, "--min-pass-rate", "0.9"], envOf(down));
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/Correctness +0 +0 +2 +0 +- +- +-/);
    expect(r.stdout).toContain("Correctness: 2 errored, gated");
    expect(r.stderr.split(ECONNREFUSED)).toHaveLength(2);
    expect(r.stderr).toContain(`evaltrace eval: Correctness errored on 2 case(s): ${ECONNREFUSED}`);
    expect(r.stderr.trim().split("\n").at(-1)).toBe("evaltrace eval: 2 verdict(s) errored (a judge or a scorer failed); --allow-errored to pass anyway");
    expect(hasStack(r.stderr)).toBe(false);
    const plain = await runCli(["eval", support], envOf(down));
    expect(plain.code).toBe(4);
  });

  it("passes an errored run with --allow-errored, still printing the error", async () => {
    const r = await runCli(["eval", support, "--allow-errored"], envOf(down));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Correctness errored on 2 case(s): ${ECONNREFUSED}`);
  });

  it("leaves NOT_JUDGED ungated and says why: no judge configured", async () => {
    const r = await runCli(["eval", support, "--min-pass-rate", "0.9"], envOf(bare));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Correctness: not judged (no judge configured (the emulator without a judge answers NOT_JUDGED)), not gated");
  });

  it("gates a scorer of the module's own beside the service's metric: a throwing scorer is errored (exit 4)", async () => {
    const mod = file(
      "scored.mjs",
      `export const metricCollection = "support";
export const goldens = [{ input: "When does A-1 ship?", expectedOutput: "It ships in 2 days." }];
export const task = (g) => "It ships in 2 days.";
export const scorers = [
  ({ actualOutput, expectedOutput }) => ({ name: "Exact", score: actualOutput === expectedOutput ? 1 : 0 }),
  function flaky() { throw new Error("rate limited"); },
];
`,
    );
    const r = await runCli(["eval", mod], envOf(judging));
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/Exact +1 +0 +0 +0 +100\.0% +1\.00 +1\.00/);
    expect(r.stderr).toContain("evaltrace eval: flaky errored on 1 case(s): the scorer threw: rate limited");
  });
});

describe("evaltrace eval --baseline", () => {
  it("prints per-case regressions and improvements against an earlier run, and --fail-on-regression exits 1 on them", async () => {
    const first = await runCli(["eval", support, "--identifier", "base"], envOf(judging));
    expect(first.code, first.stderr).toBe(0);
    const worse = await runCli(["eval", support, "--identifier", "head", "--baseline", "base"], { ...envOf(judging), ANSWER_A2: "No idea." });
    expect(worse.code, worse.stderr).toBe(0);
    expect(worse.stdout).toContain("baseline base");
    expect(worse.stdout).toContain('regression: "Where is A-2?" Correctness passed 0.90 -> failed 0.20');
    const gated = await runCli(["eval", support, "--identifier", "head-2", "--baseline", "base", "--fail-on-regression"], { ...envOf(judging), ANSWER_A2: "No idea." });
    expect(gated.code).toBe(1);
    expect(gated.stderr.trim().split("\n").at(-1)).toBe("evaltrace eval: 1 regression(s) against baseline base (--fail-on-regression)");
    const better = await runCli(["eval", support, "--identifier", "head-3", "--baseline", "head-2"], envOf(judging));
    expect(better.stdout).toContain('improvement: "Where is A-2?" Correctness failed 0.20 -> passed 0.90');
    const unknown = await runCli(["eval", support, "--baseline", "no-such-run"], envOf(judging));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--baseline: no test run with id or identifier no-such-run");
  });
});

describe("evaltrace eval loads modules", () => {
  it("runs a TypeScript module (.ts and .mts) on this Node: strip-types where Node has it, else tsx", async () => {
    for (const ext of ["ts", "mts"]) {
      const mod = file(
        `typed-${ext}.${ext}`,
        `import type { SingleTurnGolden } from "evaltrace";
export const metricCollection: string = "support";
export const goldens: SingleTurnGolden[] = [{ input: "When does A-1 ship?" }];
export async function task(golden: SingleTurnGolden): Promise<string> {
  const answer: string = "It ships in 2 days.";
  return answer;
}
`,
      );
      const r = await runCli(["eval", mod], envOf(judging));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Correctness +1 +0 +0 +0 +100\.0%/);
    }
  });

  it("runs every *.eval.* module of a directory, one run each, and exits with the worst outcome", async () => {
    const evals = join(dir, "evals");
    file("evals/good.eval.mjs", `export const metricCollection = "support"; export const goldens = [{ input: "ship?" }]; export const task = () => "It ships.";\n`);
    file("evals/nested/bad.eval.mjs", `export const metricCollection = "support"; export const goldens = [{ input: "ship?" }]; export const task = () => { throw new Error("down"); };\n`);
    file("evals/helper.mjs", "export const notAnEval = true;\n");
    const r = await runCli(["eval", evals, "--min-pass-rate", "1"], envOf(judging));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("good: 1 golden(s)");
    expect(r.stdout).toContain("bad: 1 golden(s)");
    expect(r.stdout).not.toContain("helper");
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const none = await runCli(["eval", empty], envOf(judging));
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no *.eval.* module in ${empty}`);
  });

  it("points at the user's file and line on a syntax error, a throw at load, and an unknown import", async () => {
    const cases: [string, string, RegExp][] = [
      ["syntax.mjs", "export const goldens = [];\nexport const task = () => {\n  return 1 +;\n};\n", /could not load .*syntax\.mjs:3(:\d+)?: SyntaxError: Unexpected/],
      ["throws.mjs", "export const goldens = [];\n\nthrow new Error('no API key for the app');\n", /could not load .*throws\.mjs:3(:\d+)?: Error: no API key for the app/],
      ["syntax.ts", "export const goldens: string[] = [];\nexport const task = (): number => {\n  return 1 +;\n};\n", /could not load .*syntax\.ts:3(:\d+)?: .*(SyntaxError|Expected|Unexpected)/],
      ["imports.mjs", 'import "no-such-package";\nexport const goldens = [];\n', /could not load .*imports\.mjs: (Error|ResolveMessage): Cannot find package 'no-such-package' imported from .*imports\.mjs/],
    ];
    for (const [name, text, pattern] of cases) {
      const r = await runCli(["eval", file(name, text), "--metric-collection", "support"], envOf(judging));
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toMatch(pattern);
      expect(r.stderr, name).not.toContain("dist/cli");
      expect(r.stderr.trim().split("\n"), name).toHaveLength(1);
    }
  });
});
