import { BedrockRuntimeClient, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime";
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { type FakeBedrock, startFakeBedrock, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapBedrock } from "../../src/integrations/bedrock/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { configureForTest } from "../helpers/sdk.js";

// Embedding and token-counting calls of the model SDKs, with the real packages against the fakes.

let dev: DevServer;
let google: Awaited<ReturnType<typeof startFakeGoogleGenAI>>;
let fakeBedrock: FakeBedrock;
let bedrock: BedrockRuntimeClient;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  google = await startFakeGoogleGenAI();
  fakeBedrock = await startFakeBedrock();
  configureForTest(dev.url, dev.projectKey);
  bedrock = wrapBedrock(new BedrockRuntimeClient({ endpoint: fakeBedrock.url, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 }));
});
afterAll(async () => {
  await shutdown(0);
  bedrock.destroy();
  await fakeBedrock.close();
  await google.close();
  await dev.close();
});

/** Runs `fn` in a root span and returns the spans the emulator stored for that trace, the root left out. */
async function spansOf(fn: () => Promise<unknown>): Promise<StoredSpan[]> {
  let uuid = "";
  await observe({ name: "root" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  return dev.state.traces[uuid]!.spans.filter((s) => s.name !== "root");
}

describe("@google/genai embedContent and countTokens (wrapGoogleGenAI)", () => {
  it("embedContent is one llm span per request: model, provider Gemini, the texts as input, the embedding count as output", async () => {
    const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: google.url } }));
    const spans = await spansOf(async () => {
      const r = await ai.models.embedContent({ model: "text-embedding-004", contents: ["Orders ship in 2 days.", "Returns take a week."] });
      expect(r.embeddings).toHaveLength(2);
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      type: "llm",
      name: "gemini.embedContent",
      status: "SUCCESS",
      model: "text-embedding-004",
      provider: "Gemini",
      integration: "Google GenAI",
      input: [{ role: "user", content: "Orders ship in 2 days.\nReturns take a week." }],
      output: "[2 embedding(s)]",
    });
  });

  it("countTokens is a base span (no model request): the contents as input, the total as output, no llm span", async () => {
    const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: google.url } }));
    let total = 0;
    const spans = await spansOf(async () => {
      total = (await ai.models.countTokens({ model: "gemini-2.0-flash", contents: "When do orders ship?" })).totalTokens!;
    });
    expect(total).toBeGreaterThan(0);
    expect(spans.filter((s) => s.type === "llm")).toHaveLength(0);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ type: "base", name: "gemini.countTokens", status: "SUCCESS", metadata: { model: "gemini-2.0-flash", totalTokens: total } });
    expect(JSON.stringify(spans[0]!.input)).toContain("When do orders ship?");
  });
});

describe("Bedrock InvokeModel with embedding models (wrapBedrock)", () => {
  it("a Titan embeddings body: the inputText as input, the count as output, the reply's inputTextTokenCount as tokens", async () => {
    let tokens = 0;
    const spans = await spansOf(async () => {
      const out = await bedrock.send(new InvokeModelCommand({ modelId: "amazon.titan-embed-text-v2:0", body: JSON.stringify({ inputText: "Orders ship in 2 days.", dimensions: 256 }) }));
      const body = JSON.parse(new TextDecoder().decode(out.body)) as { embedding: number[]; inputTextTokenCount: number };
      expect(body.embedding).toHaveLength(256);
      tokens = body.inputTextTokenCount;
    });
    expect(tokens).toBeGreaterThan(0);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      type: "llm",
      status: "SUCCESS",
      model: "amazon.titan-embed-text-v2:0",
      provider: "Bedrock",
      input: [{ role: "user", content: "Orders ship in 2 days." }],
      output: "[1 embedding(s)]",
      inputTokenCount: tokens,
      metadata: { modelFamily: "Amazon Titan Embeddings" },
    });
  });

  it("a Cohere embed body: the texts as input, the count as output", async () => {
    const spans = await spansOf(async () => {
      const out = await bedrock.send(new InvokeModelCommand({ modelId: "cohere.embed-english-v3", body: JSON.stringify({ texts: ["Orders ship in 2 days.", "Returns take a week."], input_type: "search_document" }) }));
      const body = JSON.parse(new TextDecoder().decode(out.body)) as { embeddings: number[][]; response_type: string };
      expect(body.embeddings).toHaveLength(2);
      expect(body.response_type).toBe("embeddings_floats");
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      type: "llm",
      status: "SUCCESS",
      model: "cohere.embed-english-v3",
      input: [{ role: "user", content: "Orders ship in 2 days.\nReturns take a week." }],
      output: "[2 embedding(s)]",
      metadata: { modelFamily: "Cohere Embed" },
    });
  });
});
