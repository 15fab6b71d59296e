import { describe, expect, it } from "vitest";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { runsHere } from "../helpers/skips.js";
import { zeroCodeRig } from "../helpers/zero-code-rig.js";

// Zero-code rides on Node's module hooks (module.register, require-in-the-middle); Bun has neither.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/embeddings.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

// LangChain embeddings emit no callback: each embedding request is still one llm span, with tokens,
// and a stock retriever's span names its embedder, nothing printed to the app's stderr.

const rig = zeroCodeRig();
const { runApp } = rig;

function traceOf(root: string): StoredSpan[] | undefined {
  return Object.values(rig.dev.state.traces)
    .map((t) => t.spans)
    .find((spans) => spans.some((s) => s.name === root && !s.parentUuid));
}

// MemoryVectorStore is in @langchain/classic (not installed with langchain 1): a store of the same
// shape on @langchain/core's VectorStore, as any vector store integration is.
const store = `class ListStore extends VectorStore {
  constructor(embeddings) { super(embeddings, {}); this.items = []; }
  _vectorstoreType() { return "list"; }
  async addVectors(vectors, docs) { docs.forEach((d, i) => this.items.push({ v: vectors[i], d })); }
  async addDocuments(docs) { return this.addVectors(await this.embeddings.embedDocuments(docs.map((d) => d.pageContent)), docs); }
  async similaritySearchVectorWithScore(q, k) { return this.items.map(({ v, d }) => [d, v.reduce((s, x, i) => s + x * q[i], 0)]).sort((a, b) => b[1] - a[1]).slice(0, k); }
  static async fromDocuments(docs, embeddings) { const s = new ListStore(embeddings); await s.addDocuments(docs); return s; }
}
class LocalEmbeddings extends Embeddings {
  constructor(model) { super({}); if (model) this.model = model; }
  async embedDocuments(texts) { return texts.map((t) => [t.length, 1]); }
  async embedQuery(text) { return [text.length, 1]; }
}`;

const app = (format: "esm" | "cjs", root: string, embeddings: string) => {
  const load =
    format === "esm"
      ? 'import { OpenAIEmbeddings } from "@langchain/openai"; import { Embeddings } from "@langchain/core/embeddings"; import { VectorStore } from "@langchain/core/vectorstores"; import { Document } from "@langchain/core/documents"; import { observe, shutdown, stats } from "evaltrace";'
      : 'const { OpenAIEmbeddings } = require("@langchain/openai"); const { Embeddings } = require("@langchain/core/embeddings"); const { VectorStore } = require("@langchain/core/vectorstores"); const { Document } = require("@langchain/core/documents"); const { observe, shutdown, stats } = require("evaltrace");';
  const body = `${load}
${store}
const embeddings = ${embeddings};
(async () => {
  await observe({ name: "${root}" }, async () => {
    const vs = await ListStore.fromDocuments([new Document({ pageContent: "Orders ship in 2 days." }), new Document({ pageContent: "Returns take a week." })], embeddings);
    const docs = await vs.asRetriever({ k: 1 }).invoke("How fast do orders ship?");
    console.log(docs.length);
  })();
  console.log("defaulted", stats().retrieverEmbeddersDefaulted);
  await shutdown();
})();`;
  return body;
};

const openaiEmbeddings = 'new OpenAIEmbeddings({ model: "text-embedding-3-small", apiKey: "sk-test", configuration: { baseURL: process.env.FAKE_OPENAI }, maxRetries: 0 })';

describe.skipIf(onBun)("zero-code langchain embeddings", () => {
  it.each(["esm", "cjs"] as const)("%s: OpenAIEmbeddings in a vector store and its retriever: one llm span per embedding request the fake served, each with tokens; the retriever's embedder is the model; nothing on stderr", async (format) => {
    const root = `emb-openai-${format}`;
    const before = rig.openai.requests.filter((r) => r.path.endsWith("/embeddings")).length;
    const f = await runApp(format, app(format, root, openaiEmbeddings));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const served = rig.openai.requests.filter((r) => r.path.endsWith("/embeddings")).length - before;
    expect(served).toBe(2);
    const spans = traceOf(root)!;
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(served);
    for (const s of llm) expect(s).toMatchObject({ name: "openai.embeddings", model: "text-embedding-3-small", status: "SUCCESS", inputTokenCount: expect.any(Number) });
    expect(spans.find((s) => s.type === "retriever")).toMatchObject({ embedder: "text-embedding-3-small" });
  });

  it("an Embeddings subclass of no instrumented SDK: one llm span per call (its model, the texts, the count); its retriever's embedder is its model", async () => {
    const root = "emb-local";
    const f = await runApp("esm", app("esm", root, 'new LocalEmbeddings("local-minilm")'));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = traceOf(root)!;
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm.map((s) => s.name).sort()).toEqual(["LocalEmbeddings.embedDocuments", "LocalEmbeddings.embedQuery"]);
    expect(llm.find((s) => s.name === "LocalEmbeddings.embedDocuments")).toMatchObject({ model: "local-minilm", integration: "LangChain", input: [{ role: "user", content: "Orders ship in 2 days.\nReturns take a week." }], output: "[2 embedding(s)]" });
    expect(spans.find((s) => s.type === "retriever")).toMatchObject({ embedder: "local-minilm" });
  });

  it("an embedder whose model cannot be read: the retriever span gets the default embedder, nothing on stderr", async () => {
    const root = "emb-nameless";
    const f = await runApp("cjs", app("cjs", root, "new LocalEmbeddings()"));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout).toContain("defaulted 1");
    const spans = traceOf(root)!;
    expect(spans.find((s) => s.type === "retriever")).toMatchObject({ embedder: "default-embedder" });
    // An llm span needs a model: the embedder's class name stands in.
    expect(spans.filter((s) => s.type === "llm").every((s) => s.model === "LocalEmbeddings")).toBe(true);
  });
});

const llamaApp = (root: string, embedModel: string) => `import { Document, VectorStoreIndex, Settings } from "llamaindex";
import { OpenAIEmbedding } from "@llamaindex/openai";
import { BaseEmbedding } from "@llamaindex/core/embeddings";
import { observe, shutdown, stats } from "evaltrace";
class LocalEmbedding extends BaseEmbedding {
  constructor(model) { super(); if (model) this.model = model; }
  async getTextEmbedding(text) { return [text.length, 1]; }
}
Settings.embedModel = ${embedModel};
await observe({ name: "${root}" }, async () => {
  const index = await VectorStoreIndex.fromDocuments([new Document({ text: "Orders ship in 2 days." }), new Document({ text: "Returns take a week." })]);
  const nodes = await index.asRetriever({ similarityTopK: 1 }).retrieve({ query: "How fast do orders ship?" });
  console.log(nodes.length);
})();
console.log("defaulted", stats().retrieverEmbeddersDefaulted);
await shutdown();`;

describe.skipIf(onBun)("zero-code llamaindex embeddings", () => {
  it("a BaseEmbedding subclass of no instrumented SDK: one llm span per call (documents, then the query), the retriever's embedder its model; nothing on stderr", async () => {
    const root = "li-emb-local";
    const f = await runApp("esm", llamaApp(root, 'new LocalEmbedding("local-minilm")'));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = traceOf(root)!;
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm.map((s) => s.name).sort()).toEqual(["LocalEmbedding.getQueryEmbedding", "LocalEmbedding.getTextEmbeddingsBatch"]);
    expect(llm.find((s) => s.name === "LocalEmbedding.getTextEmbeddingsBatch")).toMatchObject({ model: "local-minilm", integration: "LlamaIndex", output: "[2 embedding(s)]", status: "SUCCESS" });
    expect(spans.find((s) => s.type === "retriever")).toMatchObject({ embedder: "local-minilm" });
  });

  it("OpenAIEmbedding: one llm span per embedding request the fake served, each with tokens", async () => {
    const root = "li-emb-openai";
    const before = rig.openai.requests.filter((r) => r.path.endsWith("/embeddings")).length;
    const f = await runApp("esm", llamaApp(root, 'new OpenAIEmbedding({ model: "text-embedding-3-small", apiKey: "sk-test", additionalSessionOptions: { baseURL: process.env.FAKE_OPENAI } })'));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const served = rig.openai.requests.filter((r) => r.path.endsWith("/embeddings")).length - before;
    const llm = traceOf(root)!.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(served);
    for (const s of llm) expect(s).toMatchObject({ name: "openai.embeddings", model: "text-embedding-3-small", inputTokenCount: expect.any(Number) });
  });
});
