import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { startFakeAnthropic, startFakeGoogleGenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { type Finished, packageRoot } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// The net below the method-level wrappers, as zero-code and instrument() wire it (children load
// dist/: build first with `npx tsup`).
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/zero-code-net.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

let dev: DevServer;
let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
let anthropic: Awaited<ReturnType<typeof startFakeAnthropic>>;
let google: Awaited<ReturnType<typeof startFakeGoogleGenAI>>;

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  [openai, anthropic, google] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeGoogleGenAI()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), google.close()]);
  await dev.close();
});

/** Runs an ESM app (`preload`: under `--import evaltrace/auto`; else as it is). */
function runApp(source: string, preload: boolean): Promise<Finished> {
  const args = [...(preload ? ["--import", "evaltrace/auto"] : []), "--input-type=module", "-e", source];
  const env = { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_OPENAI: openai.url, FAKE_ANTHROPIC: anthropic.url, FAKE_GOOGLE: google.url };
  const child = spawn(process.execPath, args, { cwd: packageRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** The llm spans of the traces that mention `marker` in an input. */
function llmSpansOf(marker: string): StoredSpan[] {
  return Object.values(dev.state.traces)
    .flatMap((t) => t.spans)
    .filter((s) => s.type === "llm" && JSON.stringify(s.input ?? "").includes(marker));
}

const byNet = (s: StoredSpan) => (s.metadata as Record<string, unknown> | undefined)?.["evaltrace.recordedBy"];

const app = (marker: string) => `
// Imported after instrument() (an ESM app's static imports would run before it).
const { default: OpenAI } = await import("openai");
const { default: Anthropic } = await import("@anthropic-ai/sdk");
const { inspect } = await import("node:util");
const o = new OpenAI({ apiKey: "k", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
const a = new Anthropic({ apiKey: "k", baseURL: process.env.FAKE_ANTHROPIC, maxRetries: 0 });
const before = inspect(o, { depth: 4 }) + inspect(a, { depth: 4 });
await o.post("/chat/completions", { body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker} openai raw" }] } });
await o.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker} openai create" }] });
const s = await a.post("/v1/messages", { body: { model: "claude-sonnet-4-6", max_tokens: 50, stream: true, messages: [{ role: "user", content: "${marker} anthropic raw stream" }] }, stream: true });
for await (const _ of s) {}
const after = inspect(o, { depth: 4 }) + inspect(a, { depth: 4 });
const { flush } = await import("evaltrace");
await flush();
console.log(before === after);
`;

describe.skipIf(onBun)("the net under zero-code and instrument()", () => {
  it("--import evaltrace/auto: a raw openai post and a raw streamed anthropic post are one net llm span each, a create one wrapped span; nothing on stderr; the clients look the same", async () => {
    const marker = "net-auto";
    const f = await runApp(app(marker), true);
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout).toBe("true\n");
    const spans = llmSpansOf(marker);
    expect(spans.map((s) => [JSON.stringify(s.input).includes("raw"), byNet(s) ?? "wrapper"]).sort()).toEqual([
      [false, "wrapper"],
      [true, "net"],
      [true, "net"],
    ]);
    expect(spans.find((s) => JSON.stringify(s.input).includes("anthropic raw stream"))).toMatchObject({ status: "SUCCESS", provider: "Anthropic", output: "Orders ship in 2 days." });
  });

  it("instrument() with no preload wires the net too; instrument({ openai: false }) leaves openai's requests unrecorded", async () => {
    const marker = "net-instrument";
    const src = `import { instrument } from "evaltrace/instrument";\ninstrument({ openai: false });\n${app(marker)}`;
    const f = await runApp(src, false);
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = llmSpansOf(marker);
    expect(spans.map((s) => [s.provider, byNet(s)])).toEqual([["Anthropic", "net"]]);
  });
});
