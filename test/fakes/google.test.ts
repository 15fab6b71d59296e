import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeGoogleGenAI, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { postJson, readJson, readSse } from "./sse.js";

// The Gemini API's REST shapes, checked with raw fetch (the real @google/genai is not a dependency
// yet): https://ai.google.dev/api/generate-content, https://ai.google.dev/api/embeddings.
let fake: FakeGoogleGenAI;
beforeAll(async () => {
  fake = await startFakeGoogleGenAI();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const REPLY = "Orders ship in 2 days.";
const headers = { "x-goog-api-key": "test-key" };
const user = (text: string) => ({ role: "user", parts: [{ text }] });
const url = (model: string, method: string, query = "") => `${fake.url}/v1beta/models/${model}:${method}${query}`;
const generate = (body: Record<string, unknown>, model = "gemini-2.0-flash", extra: Record<string, string> = {}) =>
  postJson(url(model, "generateContent"), { contents: [user("When do orders ship?")], ...body }, { ...headers, ...extra });
const lookup = { functionDeclarations: [{ name: "lookup_order", description: "Finds an order", parameters: { type: "OBJECT", properties: { orderId: { type: "STRING" } }, required: ["orderId"] } }] };

interface Chunk {
  candidates: { content: { role: string; parts: Record<string, unknown>[] }; finishReason?: string; index: number }[];
  usageMetadata: { promptTokenCount: number; candidatesTokenCount?: number; totalTokenCount: number };
  modelVersion: string;
  responseId: string;
}

describe("generateContent", () => {
  it("a candidate with text, STOP, usageMetadata; the request is recorded", async () => {
    const res = await generate({ systemInstruction: { parts: [{ text: "Be brief" }] } });
    expect(res.status).toBe(200);
    const r = (await res.json()) as Chunk;
    expect(r).toMatchObject({
      candidates: [{ content: { role: "model", parts: [{ text: REPLY }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: expect.any(Number), candidatesTokenCount: 4 },
      modelVersion: "gemini-2.0-flash",
      responseId: expect.any(String),
    });
    expect(r.usageMetadata.totalTokenCount).toBe(r.usageMetadata.promptTokenCount + 4);
    expect(fake.requests).toMatchObject([{ method: "POST", path: "/v1beta/models/gemini-2.0-flash:generateContent", headers: { "x-goog-api-key": "test-key" } }]);
  });

  it("function calls from OpenAPI-style and JSON Schema declarations; a functionResponse turn answers with text", async () => {
    const first = (await (await generate({ tools: [lookup] })).json()) as Chunk;
    expect(first.candidates[0]).toMatchObject({ content: { role: "model", parts: [{ functionCall: { name: "lookup_order", args: { orderId: "A-1001" } } }] }, finishReason: "STOP" });
    const jsonSchema = { functionDeclarations: [{ name: "refund", parametersJsonSchema: { type: "object", properties: { amount: { type: "number" } } } }] };
    const named = (await (await generate({ tools: [lookup, jsonSchema], contents: [user("please refund")] })).json()) as Chunk;
    expect(named.candidates[0]!.content.parts).toEqual([{ functionCall: { name: "refund", args: { amount: 1 } } }]);
    const after = (await (
      await generate({
        tools: [lookup],
        contents: [user("Where is A-1001?"), first.candidates[0]!.content, { role: "user", parts: [{ functionResponse: { name: "lookup_order", response: { status: "shipped" } } }] }],
      })
    ).json()) as Chunk;
    expect(after.candidates[0]!.content.parts).toEqual([{ text: REPLY }]);
  });

  it("functionCallingConfig: ANY with one allowed name calls it even after responses; NONE answers", async () => {
    const jsonSchema = { functionDeclarations: [{ name: "refund", parametersJsonSchema: { type: "object", properties: { amount: { type: "number" } } } }] };
    const any = (await (await generate({ tools: [lookup, jsonSchema], toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["refund"] } } })).json()) as Chunk;
    expect(any.candidates[0]!.content.parts[0]).toMatchObject({ functionCall: { name: "refund" } });
    const none = (await (await generate({ tools: [lookup], toolConfig: { functionCallingConfig: { mode: "NONE" } } })).json()) as Chunk;
    expect(none.candidates[0]!.content.parts).toEqual([{ text: REPLY }]);
  });

  it("JSON output from responseSchema / responseJsonSchema; maxOutputTokens gives MAX_TOKENS", async () => {
    const schema = { type: "OBJECT", properties: { answer: { type: "STRING" }, days: { type: "INTEGER" } }, propertyOrdering: ["answer", "days"] };
    const r = (await (await generate({ generationConfig: { responseMimeType: "application/json", responseSchema: schema } })).json()) as Chunk;
    expect(JSON.parse(String(r.candidates[0]!.content.parts[0]!.text))).toEqual({ answer: REPLY, days: 1 });
    const cut = (await (await generate({ generationConfig: { maxOutputTokens: 1 } })).json()) as Chunk;
    expect(cut.candidates[0]).toMatchObject({ finishReason: "MAX_TOKENS", content: { parts: [{ text: "Orders " }] } });
  });
});

describe("streamGenerateContent", () => {
  it("alt=sse: one response per piece, usage so far on each, finishReason and full usage on the last", async () => {
    const res = await postJson(url("gemini-2.0-flash", "streamGenerateContent", "?alt=sse"), { contents: [user("When?")] }, headers);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await readSse(res);
    expect(fake.requests[0]!.query).toEqual({ alt: "sse" });
    const chunks = events.map((e) => e.data as Chunk);
    expect(events.every((e) => e.event === undefined)).toBe(true);
    expect(chunks.map((c) => c.candidates[0]!.content.parts[0]!.text).join("")).toBe(REPLY);
    expect(chunks.slice(0, -1).every((c) => c.candidates[0]!.finishReason === undefined)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: "STOP" }], usageMetadata: { candidatesTokenCount: 4 } });
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);
  });

  it("function calls come whole in one event", async () => {
    const events = await readSse(await postJson(url("gemini-2.0-flash", "streamGenerateContent", "?alt=sse"), { contents: [user("Where?")], tools: [lookup] }, headers));
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ candidates: [{ content: { parts: [{ functionCall: { name: "lookup_order", args: { orderId: "A-1001" } } }] }, finishReason: "STOP" }] });
  });

  it("without alt=sse: a JSON array of the same responses", async () => {
    const res = await postJson(url("gemini-2.0-flash", "streamGenerateContent"), { contents: [user("When?")] }, headers);
    const chunks = (await res.json()) as Chunk[];
    expect(chunks.map((c) => c.candidates[0]!.content.parts[0]!.text).join("")).toBe(REPLY);
  });
});

describe("embeddings and token counts", () => {
  it("batchEmbedContents and embedContent with outputDimensionality; countTokens", async () => {
    const batch = await readJson<{ embeddings: { values: number[] }[] }>(
      await postJson(url("text-embedding-004", "batchEmbedContents"), { requests: [{ model: "models/text-embedding-004", content: { parts: [{ text: "orders" }] }, outputDimensionality: 8 }, { model: "models/text-embedding-004", content: { parts: [{ text: "refunds" }] } }] }, headers),
    );
    expect(batch.embeddings.map((e) => e.values.length)).toEqual([8, 768]);
    const one = await readJson<{ embedding: { values: number[] } }>(await postJson(url("text-embedding-004", "embedContent"), { content: { parts: [{ text: "orders" }] }, outputDimensionality: 8 }, headers));
    expect(one.embedding.values).toEqual(batch.embeddings[0]!.values);
    const counted = await readJson<{ totalTokens: number }>(await postJson(url("gemini-2.0-flash", "countTokens"), { contents: [user("When do orders ship?")] }, headers));
    const r = (await (await generate({})).json()) as Chunk;
    expect(counted.totalTokens).toBe(r.usageMetadata.promptTokenCount);
  });
});

describe("errors", () => {
  it("429 by model name: RESOURCE_EXHAUSTED with a RetryInfo detail", async () => {
    const res = await generate({}, "error-429");
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: { code: 429, message: expect.any(String), status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }] },
    });
  });

  it("failNext, the header, a missing contents field, an unknown method", async () => {
    fake.failNext(503);
    expect(await (await generate({})).json()).toMatchObject({ error: { code: 503, status: "UNAVAILABLE" } });
    expect(await (await generate({}, "gemini-2.0-flash", { "x-fake-error": "400" })).json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    const missing = await postJson(url("gemini-2.0-flash", "generateContent"), {}, headers);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("contents") } });
    const unknown = await postJson(url("gemini-2.0-flash", "predict"), {}, headers);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
  });

  it("an error body part-way through a stream when asked", async () => {
    const events = await readSse(await postJson(url("gemini-2.0-flash", "streamGenerateContent", "?alt=sse"), { contents: [user("When?")] }, { ...headers, "x-fake-stream-error-after": "1" }));
    expect(events).toHaveLength(2);
    expect(events[1]!.data).toMatchObject({ error: { code: 500, status: "INTERNAL" } });
  });
});
