import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { type Finished, runZeroCode } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";

// Zero-code rides on Node's module hooks (module.register, require-in-the-middle); Bun has neither.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/llamaindex.test.ts", "zero-code needs Node's module hooks, which Bun does not have (call instrumentLlamaIndex there)");

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

function traceOf(root: string): StoredSpan[] | undefined {
  return Object.values(dev.state.traces)
    .map((t) => t.spans)
    .find((spans) => spans.some((s) => s.name === root && !s.parentUuid));
}

const app = (format: "esm" | "cjs", root: string, setup = "") => {
  const load =
    format === "esm"
      ? 'import { Document, VectorStoreIndex, Settings, tool } from "llamaindex"; import { OpenAI, OpenAIEmbedding } from "@llamaindex/openai"; import { agent } from "@llamaindex/workflow"; import { observe, shutdown } from "evaltrace";'
      : 'const { Document, VectorStoreIndex, Settings, tool } = require("llamaindex"); const { OpenAI, OpenAIEmbedding } = require("@llamaindex/openai"); const { agent } = require("@llamaindex/workflow"); const { observe, shutdown } = require("evaltrace");';
  return `${load}
const llm = new OpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
${setup}
Settings.llm = llm;
Settings.embedModel = new OpenAIEmbedding({ model: "text-embedding-3-small", apiKey: "sk-test", additionalSessionOptions: { baseURL: process.env.FAKE_OPENAI } });
const getOrder = tool({ name: "getOrder", description: "Look up an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] }, execute: ({ orderId }) => "Order " + orderId + " ships tomorrow" });
await observe({ name: "${root}" }, async () => {
  const index = await VectorStoreIndex.fromDocuments([new Document({ text: "Orders ship in 2 days." })]);
  console.log((await index.asQueryEngine().query({ query: "How fast do orders ship?" })).toString());
  console.log((await agent({ tools: [getOrder], llm }).run("Where is order A-1001?")).data.result);
})();
await shutdown();`;
};

describe.skipIf(onBun)("zero-code llamaindex", () => {
  it.each(["esm", "cjs"] as const)("%s: a RAG query and a workflow agent are traced from LlamaIndex's events, each chat call once (not again by the openai hook), and the embedding calls (which LlamaIndex's events never carry) by the openai hook", async (format) => {
    const root = `li-${format}`;
    const f = await runApp(format, app(format, root));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim().split("\n")).toEqual(["Orders ship in 2 days.", "Orders ship in 2 days."]);
    const spans = traceOf(root)!;
    expect(spans).toBeDefined();
    const kinds = spans.map((s) => `${s.type}:${s.name}`).sort();
    // The documents' embeddings, then the query's.
    expect(kinds).toEqual(["agent:Agent", `base:${root}`, "llm:OpenAI", "llm:OpenAI", "llm:OpenAI", "llm:openai.embeddings", "llm:openai.embeddings", "retriever:VectorIndexRetriever", "tool:getOrder"]);
    expect(spans.filter((s) => s.type === "llm" && s.name === "OpenAI").every((s) => s.integration === "LlamaIndex" && s.status === "SUCCESS")).toBe(true);
    expect(spans.filter((s) => s.name === "openai.embeddings").every((s) => s.status === "SUCCESS" && typeof s.inputTokenCount === "number")).toBe(true);
    expect(spans.find((s) => s.type === "retriever")).toMatchObject({ retrievalContext: ["Orders ship in 2 days."], embedder: "text-embedding-3-small" });
  });

  it("EVALTRACE_DISABLE_INSTRUMENTATIONS=llamaindex records no LlamaIndex span; the openai hook then records the model calls itself", async () => {
    const root = "li-off";
    const f = await runApp("esm", app("esm", root), { EVALTRACE_DISABLE_INSTRUMENTATIONS: "llamaindex" });
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = traceOf(root)!;
    expect(spans.some((s) => s.integration === "LlamaIndex")).toBe(false);
    expect(spans.filter((s) => s.type === "llm").length).toBeGreaterThan(0);
  });

  it("an app calling instrumentLlamaIndex itself under zero-code records each call once, with its options", async () => {
    const root = "li-own-call";
    const setup = 'const { instrumentLlamaIndex } = await import("evaltrace/llamaindex"); const { AgentWorkflow } = await import("@llamaindex/workflow"); instrumentLlamaIndex(Settings, { AgentWorkflow, metricCollection: "answers" });';
    const f = await runApp("esm", app("esm", root, setup));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = traceOf(root)!;
    const llm = spans.filter((s) => s.type === "llm" && s.integration === "LlamaIndex");
    expect(llm).toHaveLength(3);
    expect(spans.filter((s) => s.name === "openai.embeddings")).toHaveLength(2);
    expect(llm.every((s) => s.metricCollection === "answers")).toBe(true);
    expect(spans.filter((s) => s.type === "agent")).toHaveLength(1);
    expect(spans.filter((s) => s.type === "retriever")).toHaveLength(1);
  });
});
