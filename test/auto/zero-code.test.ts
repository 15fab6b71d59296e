import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeAnthropic, startFakeGoogleGenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type Finished, packageRoot } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code rides on Node's module hooks (module.register, require-in-the-middle); Bun has neither,
// so there an app calls the wrap functions itself.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/zero-code.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap the clients there)");

// Zero-code: apps with no evaltrace import, run under `node --import evaltrace/auto`,
// `node -r evaltrace/auto` or NODE_OPTIONS (children load dist/: build first with `npx tsup`).

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

type Format = "esm" | "cjs";
type Preload = "--import" | "-r" | "NODE_OPTIONS";

/** Runs an app (a `.mjs` or `.cjs` body as `-e` source) with the SDK preloaded, configured by the environment only. */
function runApp(format: Format, preload: Preload, source: string, env: Record<string, string> = {}): Promise<Finished> {
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const flags = preload === "NODE_OPTIONS" ? [] : [preload, "evaltrace/auto"];
  const args = [...flags, ...(format === "esm" ? ["--input-type=module"] : []), "-e", body];
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    EVALTRACE_API_KEY: dev.projectKey,
    EVALTRACE_BASE_URL: dev.url,
    FAKE_OPENAI: openai.url,
    FAKE_ANTHROPIC: anthropic.url,
    FAKE_GOOGLE: google.url,
    ...(preload === "NODE_OPTIONS" ? { NODE_OPTIONS: format === "esm" ? "--import evaltrace/auto" : "--require evaltrace/auto" } : {}),
    ...env,
  };
  const child = spawn(process.execPath, args, { cwd: packageRoot, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** `import X from "m"` / `const X = require("m")` lines for the format. */
function imports(format: Format, lines: [names: string, spec: string][]): string {
  return lines.map(([names, spec]) => (format === "esm" ? `import ${names} from "${spec}";` : `const ${names.startsWith("{") ? names : `${names}`} = require("${spec}");`)).join("\n");
}

/** The traces the emulator stored whose root span has this name (the app marks each run by a unique name). */
function tracesOf(marker: string): StoredSpan[][] {
  return Object.values(dev.state.traces)
    .map((t) => t.spans)
    .filter((spans) => spans.some((s) => JSON.stringify(s.input ?? "").includes(marker) || JSON.stringify(s.output ?? "").includes(marker)));
}

const ok = (f: Finished) => {
  expect(f.stderr, f.stderr).toBe("");
  expect(f.code, f.stderr).toBe(0);
};

const openaiApp = (format: Format, marker: string, extra = "") => `
${format === "esm" ? 'import OpenAI from "openai";' : 'const OpenAI = require("openai");'}
${extra}
const client = new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
const r = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker}" }] });
const again = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker} again" }] });
console.log(JSON.stringify({ text: r.choices[0].message.content, same: client.chat.completions === client.chat.completions, inst: client instanceof (OpenAI.default ?? OpenAI), n: again.choices.length }));
`;

describe.skipIf(onBun)("zero-code openai", () => {
  const cases: [Format, Preload][] = [
    ["esm", "--import"],
    ["cjs", "-r"],
    ["esm", "NODE_OPTIONS"],
    ["cjs", "NODE_OPTIONS"],
    ["esm", "-r"],
  ];
  it.each(cases)("%s app with %s: each call is one llm span, the client unchanged, nothing logged", async (format, preload) => {
    const marker = `oa-${format}-${preload}`;
    const f = await runApp(format, preload, openaiApp(format, marker));
    ok(f);
    expect(JSON.parse(f.stdout)).toEqual({ text: expect.any(String), same: true, inst: true, n: 1 });
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(2);
    for (const spans of traces) {
      expect(spans).toHaveLength(1);
      expect(spans[0]).toMatchObject({ name: "openai.chat.completions", type: "llm", status: "SUCCESS", model: expect.stringMatching(/^gpt-4o-mini/), provider: "OpenAI", integration: "OpenAI" });
    }
    expect(traces.map((t) => t[0]!.input)).toContainEqual([{ role: "user", content: marker }]);
  });

  it("an app that wraps its client itself gets one span per call, not two", async () => {
    const marker = "oa-self-wrapped";
    const extra = 'const { wrapOpenAI } = await import("evaltrace/openai");';
    const src = openaiApp("esm", marker, extra).replace("const client = new OpenAI(", "const client = wrapOpenAI(new OpenAI(").replace("maxRetries: 0 });", "maxRetries: 0 }), { name: \"mine\" });");
    const f = await runApp("esm", "--import", src);
    ok(f);
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(2);
    for (const spans of traces) expect(spans.map((s) => s.name)).toEqual(["mine"]);
  });

  it("EVALTRACE_DISABLE_INSTRUMENTATIONS=openai leaves openai alone (and the others on)", async () => {
    const marker = "oa-disabled";
    const src = `${openaiApp("cjs", marker)}
const Anthropic = require("@anthropic-ai/sdk");
const a = new Anthropic({ apiKey: "k", baseURL: process.env.FAKE_ANTHROPIC, maxRetries: 0 });
await a.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "${marker} anthropic" }] });`;
    const f = await runApp("cjs", "-r", src, { EVALTRACE_DISABLE_INSTRUMENTATIONS: "openai, langchain" });
    ok(f);
    const names = tracesOf(marker).flatMap((t) => t.map((s) => s.name));
    expect(names).toEqual(["anthropic.messages.create"]);
  });

  it("an unknown name in EVALTRACE_DISABLE_INSTRUMENTATIONS is reported once, the rest still applies", async () => {
    const f = await runApp("esm", "--import", openaiApp("esm", "oa-unknown"), { EVALTRACE_DISABLE_INSTRUMENTATIONS: "openai,opneai" });
    expect(f.code).toBe(0);
    expect(f.stderr.match(/unknown libraries \(opneai\)/g)).toHaveLength(1);
    expect(tracesOf("oa-unknown")).toHaveLength(0);
  });
});

describe.skipIf(onBun)("zero-code apps that load none of the libraries", () => {
  it.each(["esm", "cjs"] as const)("%s: runs as without the preload, logs nothing, sends nothing", async (format) => {
    const before = Object.keys(dev.state.traces).length;
    const src = `${imports(format, [["{ createHash }", "node:crypto"]])}
console.log(createHash("sha256").update("x").digest("hex").slice(0, 8));`;
    for (const preload of ["--import", "-r"] as const) {
      const f = await runApp(format, preload, src);
      ok(f);
      expect(f.stdout).toBe("2d711642\n");
    }
    expect(Object.keys(dev.state.traces).length).toBe(before);
  });
});

describe.skipIf(onBun)("zero-code anthropic and google-genai", () => {
  it.each(["esm", "cjs"] as const)("%s: an Anthropic call (created and streamed) is one llm span each", async (format) => {
    const marker = `an-${format}`;
    const src = `${imports(format, [["Anthropic", "@anthropic-ai/sdk"]])}
const a = new Anthropic({ apiKey: "k", baseURL: process.env.FAKE_ANTHROPIC, maxRetries: 0 });
const r = await a.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, system: "Be brief", messages: [{ role: "user", content: "${marker}" }] });
const s = a.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "${marker} stream" }] });
const final = await s.finalMessage();
console.log(r.content[0].text === final.content[0].text);`;
    const f = await runApp(format, format === "esm" ? "--import" : "-r", src);
    ok(f);
    expect(f.stdout).toBe("true\n");
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(2);
    for (const spans of traces) expect(spans).toMatchObject([{ type: "llm", status: "SUCCESS", provider: "Anthropic", model: "claude-sonnet-4-6" }]);
    expect(traces.flat().find((s) => JSON.stringify(s.input).includes("Be brief"))?.input).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: marker },
    ]);
  });

  it.each(["esm", "cjs"] as const)("%s: a Google GenAI call (plain and streamed) is one llm span each", async (format) => {
    const marker = `gg-${format}`;
    const src = `${imports(format, [["{ GoogleGenAI }", "@google/genai"]])}
const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: process.env.FAKE_GOOGLE } });
const r = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "${marker}" });
let text = "";
for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "${marker} stream" })) text += chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? "";
console.log(typeof r.candidates[0].content.parts[0].text, text.length > 0, Object.keys(ai.models).includes("generateContent"));`;
    const f = await runApp(format, format === "esm" ? "--import" : "-r", src);
    ok(f);
    expect(f.stdout).toBe("string true true\n");
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(2);
    for (const spans of traces) expect(spans).toMatchObject([{ type: "llm", status: "SUCCESS", provider: "Gemini" }]);
    expect(traces.flat().map((s) => s.name).sort()).toEqual(["gemini.generateContent", "gemini.generateContentStream"]);
  });
});

describe.skipIf(onBun)("instrument() from the app's code", () => {
  it.each(["esm", "cjs"] as const)("under zero-code (%s), instrument() called before any library is imported keeps its say: the library it turned off stays off after the first import", async (format) => {
    const marker = `instrument-first-${format}`;
    const src = `${imports(format, [["{ instrument }", "evaltrace/instrument"]])}
instrument({ openai: false });
const mod = ${format === "esm" ? 'await import("openai")' : 'require("openai")'};
const OpenAI = mod.default ?? mod;
const Anthropic = ${format === "esm" ? '(await import("@anthropic-ai/sdk")).default' : 'require("@anthropic-ai/sdk")'};
const o = new OpenAI({ apiKey: "k", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
await o.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker}" }] });
const a = new Anthropic({ apiKey: "k", baseURL: process.env.FAKE_ANTHROPIC, maxRetries: 0 });
await a.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "${marker} anthropic" }] });`;
    const f = await runApp(format, format === "esm" ? "--import" : "-r", src);
    ok(f);
    expect(tracesOf(marker).flatMap((t) => t.map((s) => s.name))).toEqual(["anthropic.messages.create"]);
  });

  it("turns on what it is told, in a CommonJS app with no preload", async () => {
    const marker = "prog-instrument";
    const src = `const { instrument } = require("evaltrace/instrument");
let refused = "";
try { instrument({ opneai: true }); } catch (e) { refused = e.name; }
const on = instrument({ anthropic: false });
const OpenAI = require("openai");
const Anthropic = require("@anthropic-ai/sdk");
const o = new OpenAI({ apiKey: "k", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
await o.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker}" }] });
const a = new Anthropic({ apiKey: "k", baseURL: process.env.FAKE_ANTHROPIC, maxRetries: 0 });
await a.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "${marker} anthropic" }] });
console.log(refused, on.includes("openai"), on.includes("anthropic"));`;
    const f = await runApp("cjs", "NODE_OPTIONS", src, { NODE_OPTIONS: "" });
    ok(f);
    expect(f.stdout).toBe("TypeError true false\n");
    expect(tracesOf(marker).flatMap((t) => t.map((s) => s.name))).toEqual(["openai.chat.completions"]);
  });
});
