import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import type { DoctorReport } from "../../src/doctor/index.js";
import { packageRoot, runChild } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Issue 49: Next.js bundles `openai` into its server chunks, so zero-code's module hooks never
// see it load and record nothing, silently. Here the app's code is bundled by esbuild (as Next's
// bundlers do: the SDK's code inside the app's own file), then run under `--import evaltrace/auto`.
const onNode = runsHere(!("Bun" in globalThis), "test/auto/bundled-sdk.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

let dev: DevServer;
let fake: FakeOpenAI;
// Inside the repository (test-artifacts/ is git-ignored), so that the bundle resolves evaltrace.
mkdirSync(join(packageRoot, "test-artifacts"), { recursive: true });
const work = mkdtempSync(join(packageRoot, "test-artifacts", "bundled-sdk-"));
const bundle = join(work, "app.mjs");

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  await build({
    stdin: {
      contents: `import OpenAI from "openai";
import { doctor } from "evaltrace/doctor";
const openai = new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI });
for (const q of ["one", "two"]) {
  const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: q }] });
  console.log("answer: " + r.choices[0].message.content);
}
const report = await doctor();
console.log("report: " + JSON.stringify(report.findings.filter((f) => f.check === "integrations")));`,
      resolveDir: process.cwd(),
      loader: "js",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    // evaltrace stays a package of its own (Next leaves it external too, or the app would not
    // share the preloaded copy); openai is bundled.
    external: ["evaltrace", "evaltrace/*"],
    // Minified, as Next minifies server chunks: class names (which Stainless SDKs put in their
    // User-Agent) are gone.
    minify: true,
    outfile: bundle,
    logLevel: "silent",
  });
});
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await fake?.close();
  await dev?.close();
});

describe.skipIf(!onNode)("zero-code with a bundled openai (as Next.js bundles it)", () => {
  it("answers with the model's text, warns once naming serverExternalPackages, and doctor() reports openai as bundled and not instrumented", async () => {
    const child = runChild("esm", `await import(${JSON.stringify(bundle)});`, {
      NODE_OPTIONS: "--import evaltrace/auto",
      EVALTRACE_API_KEY: dev.projectKey,
      EVALTRACE_BASE_URL: dev.url,
      FAKE_OPENAI: fake.url,
    });
    const done = await child.finished;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.match(/^answer: .*$/gm)).toEqual(["answer: Orders ship in 2 days.", "answer: Orders ship in 2 days."]);
    const warnings = done.stderr.split("\n").filter((l) => l.includes("bundled"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('serverExternalPackages: ["openai"]');
    const findings = JSON.parse(done.stdout.match(/^report: (.*)$/m)![1]!) as DoctorReport["findings"];
    expect(findings).toContainEqual(
      expect.objectContaining({ ok: false, severity: "warning", message: expect.stringMatching(/^bundled into the app, not instrumented: openai/), fix: expect.stringContaining('serverExternalPackages: ["openai"]') }),
    );
  });
});
