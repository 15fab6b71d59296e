import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type Finished, hidingPackages, runZeroCode } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code rides on Node's module hooks (module.register, require-in-the-middle); Bun has neither,
// so there an app calls the wrap functions itself.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/frameworks.test.ts", "zero-code needs Node's module hooks, which Bun does not have (wrap the clients there)");

// Zero-code with frameworks that call a model SDK themselves: each model call is one llm span.

let dev: DevServer;
let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  openai = await startFakeOpenAI();
});
afterAll(async () => {
  await openai.close();
  await dev.close();
});

/** The app under zero-code, with the emulator's key and address and the fake's URL. */
function runApp(format: "esm" | "cjs", source: string, env: Record<string, string> = {}): Promise<Finished> {
  return runZeroCode(format, source, { EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_OPENAI: openai.url, ...env });
}

function tracesOf(marker: string): StoredSpan[][] {
  return Object.values(dev.state.traces)
    .map((t) => t.spans)
    .filter((spans) => spans.some((s) => JSON.stringify(s.input ?? "").includes(marker)));
}

describe.skipIf(onBun)("zero-code langchain", () => {
  it.each(["esm", "cjs"] as const)("%s: a chain is traced by the handler, its model call once (not again by the openai hook)", async (format) => {
    const marker = `lc-${format}`;
    const load =
      format === "esm"
        ? 'import { ChatOpenAI } from "@langchain/openai"; import { ChatPromptTemplate } from "@langchain/core/prompts"; import { StringOutputParser } from "@langchain/core/output_parsers";'
        : 'const { ChatOpenAI } = require("@langchain/openai"); const { ChatPromptTemplate } = require("@langchain/core/prompts"); const { StringOutputParser } = require("@langchain/core/output_parsers");';
    const src = `${load}
const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: process.env.FAKE_OPENAI }, maxRetries: 0 });
const chain = ChatPromptTemplate.fromMessages([["system", "Be brief"], ["human", "{question}"]]).pipe(model).pipe(new StringOutputParser());
console.log(await chain.invoke({ question: "${marker}" }));`;
    const f = await runApp(format, src);
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim().length).toBeGreaterThan(0);
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(1);
    const spans = traces[0]!;
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ integration: "LangChain", status: "SUCCESS" });
    expect(spans.some((s) => s.name === "openai.chat.completions")).toBe(false);
  });

  it("an app passing its own EvaltraceCallbackHandler records each run once", async () => {
    const marker = "lc-own-handler";
    const src = `import { ChatOpenAI } from "@langchain/openai";
import { EvaltraceCallbackHandler } from "evaltrace/langchain";
const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: process.env.FAKE_OPENAI }, maxRetries: 0 });
await model.invoke("${marker}", { callbacks: [new EvaltraceCallbackHandler()] });`;
    const f = await runApp("esm", src);
    expect(f.stderr, f.stderr).toBe("");
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(1);
    expect(traces[0]!.filter((s) => s.type === "llm")).toHaveLength(1);
  });
});

describe.skipIf(onBun)("zero-code openai agents", () => {
  it.each(["esm", "cjs"] as const)("%s: a run is traced by the processor, each model call once", async (format) => {
    const marker = `ag-${format}`;
    const load =
      format === "esm"
        ? 'import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI } from "@openai/agents"; import OpenAI from "openai";'
        : 'const { Agent, run, setDefaultOpenAIClient, setOpenAIAPI } = require("@openai/agents"); const OpenAI = require("openai");';
    const src = `${load}
setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 }));
setOpenAIAPI("chat_completions");
const agent = new Agent({ name: "Support", instructions: "Be brief", model: "gpt-4o-mini" });
console.log((await run(agent, "${marker}")).finalOutput);`;
    // The SDK's own exporter to OpenAI has no key here: it is its business, not ours (it may warn).
    const f = await runApp(format, src, { OPENAI_API_KEY: "" });
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).not.toMatch(/evaltrace/i);
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(1);
    const spans = traces[0]!;
    expect(spans.filter((s) => s.type === "llm")).toHaveLength(1);
    expect(spans.some((s) => s.integration === "OpenAI Agents")).toBe(true);
    expect(spans.some((s) => s.name === "openai.chat.completions")).toBe(false);
  });
});

/** The AI SDK and its OpenAI provider, loaded as an app of `format` would. */
const loadAiSdk = (format: "esm" | "cjs"): string =>
  format === "esm"
    ? 'import { generateText } from "ai"; import { createOpenAI } from "@ai-sdk/openai";'
    : 'const { generateText } = require("ai"); const { createOpenAI } = require("@ai-sdk/openai");';

describe.skipIf(onBun)("zero-code AI SDK", () => {
  it.each(["esm", "cjs"] as const)("%s: generateText with telemetry left unset is traced; set to false, it is not", async (format) => {
    const marker = `ai-${format}`;
    const load = loadAiSdk(format);
    const src = `${load}
const openai = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI });
const { text } = await generateText({ model: openai.chat("gpt-4o-mini"), prompt: "${marker}" });
await generateText({ model: openai.chat("gpt-4o-mini"), prompt: "${marker} off", experimental_telemetry: { isEnabled: false } });
console.log(text.length > 0);`;
    const f = await runApp(format, src);
    expect(f.stderr, f.stderr).toBe("");
    expect(f.stdout).toBe("true\n");
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(1);
    expect(JSON.stringify(traces[0])).not.toContain(`${marker} off`);
    expect(traces[0]!.filter((s) => s.type === "llm").length).toBeGreaterThanOrEqual(1);
  });

  it.each(["esm", "cjs"] as const)("%s: without @opentelemetry/sdk-trace-base, generateText runs untraced and the log says why and how to fix it, once", async (format) => {
    const marker = `ai-no-base-${format}`;
    const load = loadAiSdk(format);
    const src = `${load}
const openai = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI });
const first = await generateText({ model: openai.chat("gpt-4o-mini"), prompt: "${marker}" });
const second = await generateText({ model: openai.chat("gpt-4o-mini"), prompt: "${marker} again" });
console.log(first.text.length > 0 && second.text.length > 0);`;
    const f = await runApp(format, src, hidingPackages("@opentelemetry/sdk-trace-base"));
    expect(f.stdout).toBe("true\n");
    const lines = f.stderr.split("\n").filter((l) => l.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("[evaltrace] zero-code: AI SDK calls are not traced: @opentelemetry/sdk-trace-base, which makes their spans, could not be loaded");
    expect(lines[0]).toContain("npm install @opentelemetry/sdk-trace-base");
    expect(tracesOf(marker)).toHaveLength(0);
  });

  it.each(["esm", "cjs"] as const)("%s: a streamText the app aborts is ERRORED with the abort reason and the text streamed before it", async (format) => {
    const marker = `ai-abort-${format}`;
    const load =
      format === "esm"
        ? 'import { streamText } from "ai"; import { createOpenAI } from "@ai-sdk/openai";'
        : 'const { streamText } = require("ai"); const { createOpenAI } = require("@ai-sdk/openai");';
    const src = `${load}
const openai = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI });
const abort = new AbortController();
const result = streamText({ model: openai.chat("gpt-4o-mini"), prompt: "${marker}", abortSignal: abort.signal, headers: { "x-fake-stream-delay-ms": "40" } });
let read = "";
try {
  for await (const piece of result.textStream) {
    read += piece;
    if (read.split(" ").length > 2) abort.abort(new Error("user closed the tab"));
  }
} catch {}
console.log(JSON.stringify(read));`;
    const f = await runApp(format, src);
    expect(f.stderr, f.stderr).toBe("");
    const read = JSON.parse(f.stdout) as string;
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(1);
    const llm = traces[0]!.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ status: "ERRORED", error: "aborted: user closed the tab" });
    expect(String(llm[0]!.output).startsWith(read)).toBe(true);
    expect(traces[0]!.find((s) => !s.parentUuid)).toMatchObject({ status: "ERRORED", error: "aborted: user closed the tab" });
  });
});

describe.skipIf(onBun)("zero-code MCP", () => {
  it.each(["esm", "cjs"] as const)("%s: a client's tool call and the server's handler are tool spans of one trace", async (format) => {
    const marker = `mcp-${format}`;
    const names = [
      ["Client", "@modelcontextprotocol/sdk/client/index.js"],
      ["McpServer", "@modelcontextprotocol/sdk/server/mcp.js"],
      ["InMemoryTransport", "@modelcontextprotocol/sdk/inMemory.js"],
    ];
    const imports = names.map(([name, spec]) => (format === "esm" ? `import { ${name} } from "${spec}";` : `const { ${name} } = require("${spec}");`)).join("\n");
    const src = `${imports}
const server = new McpServer({ name: "orders", version: "1.0.0" });
server.registerTool("lookup_order", { description: "Finds an order" }, async () => ({ content: [{ type: "text", text: "shipped" }] }));
const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(a);
const client = new Client({ name: "app", version: "1.0.0" });
await client.connect(b);
const result = await client.callTool({ name: "lookup_order", arguments: { note: "${marker}" } });
console.log(result.content[0].text);
await client.close();
await server.close();`;
    const f = await runApp(format, src);
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim()).toBe("shipped");
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(1);
    const tools = traces[0]!.filter((s) => s.type === "tool");
    expect(tools).toHaveLength(2);
    const [client, server] = [tools.find((s) => s.parentUuid === undefined), tools.find((s) => s.parentUuid !== undefined)];
    expect(client).toMatchObject({ name: "lookup_order", integration: "MCP", status: "SUCCESS" });
    expect(server).toMatchObject({ name: "lookup_order", integration: "MCP", parentUuid: client?.uuid, description: "Finds an order" });
  });
});
