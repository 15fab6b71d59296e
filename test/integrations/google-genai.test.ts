import { ApiError, type Content, GoogleGenAI, Type } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeGoogleGenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { expectStreamTimings, timingsOf } from "../helpers/stream-timings.js";

// @google/genai 2 (Node 20+); major 3 needs Node 22.
let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeGoogleGenAI>>;
let ai: GoogleGenAI;
const newClient = () => new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: fake.url } });
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeGoogleGenAI();
  configureForTest(dev.url, dev.projectKey);
  ai = wrapGoogleGenAI(newClient(), { metricCollection: "answers" });
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

/** Runs `fn` in a root span and returns the llm spans the emulator stored for that trace. */
async function llmSpans(fn: () => Promise<unknown>): Promise<{ root: StoredSpan; llm: StoredSpan[] }> {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  const spans = dev.state.traces[uuid]!.spans;
  return { root: spans.find((s) => s.name === "agent")!, llm: spans.filter((s) => s.type === "llm") };
}

const tools = [{ functionDeclarations: [{ name: "lookup_order", description: "Finds an order", parameters: { type: Type.OBJECT, properties: { orderId: { type: Type.STRING } }, required: ["orderId"] } }] }];
const partsOf = (r: { candidates?: { content?: { parts?: unknown[] } }[] }) => r.candidates?.[0]?.content?.parts;

describe("wrapGoogleGenAI with the real @google/genai package", () => {
  it("records generateContent as an llm span: system instruction, contents, output, tokens", async () => {
    const { root, llm } = await llmSpans(async () => {
      const r = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: "When do orders ship?", config: { systemInstruction: "Be brief" } });
      expect(r.text).toBe("Orders ship in 2 days.");
    });
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({
      name: "gemini.generateContent",
      parentUuid: root.uuid,
      status: "SUCCESS",
      model: "gemini-2.0-flash",
      provider: "Gemini",
      integration: "Google GenAI",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      inputTokenCount: expect.any(Number),
      outputTokenCount: expect.any(Number),
      metricCollection: "answers",
      llmTestCase: { input: "When do orders ship?", actualOutput: "Orders ship in 2 days." },
      metadata: { finishReason: "STOP" },
    });
  });

  it("records function calls as toolsCalled without reading response.text (no SDK warning), and function responses in input", async () => {
    const warn = vi.spyOn(console, "warn");
    const { llm } = await llmSpans(async () => {
      const first = await ai.models.generateContent({ model: "gemini-2.0-flash", contents: "Where is my order?", config: { tools } });
      const call = (partsOf(first)![0] as { functionCall: { name: string; args: Record<string, unknown> } }).functionCall;
      expect(call).toMatchObject({ name: "lookup_order", args: { orderId: "A-1001" } });
      const second = await ai.models.generateContent({
        model: "gemini-2.0-flash",
        config: { tools },
        contents: [
          { role: "user", parts: [{ text: "Where is my order?" }] },
          { role: "model", parts: [{ functionCall: call }] },
          { role: "user", parts: [{ functionResponse: { name: "lookup_order", response: { status: "shipped" } } }] },
        ] as Content[],
      });
      expect(partsOf(second)).toEqual([{ text: "Orders ship in 2 days." }]);
    });
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    expect(llm[0]).toMatchObject({ output: 'lookup_order({"orderId":"A-1001"})', toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }] });
    expect(llm[1]!.input).toEqual([
      { role: "user", content: "Where is my order?" },
      { role: "assistant", content: 'lookup_order({"orderId":"A-1001"})', tool_calls: [{ name: "lookup_order", arguments: { orderId: "A-1001" } }] },
      { role: "tool", content: '{"status":"shipped"}' },
    ]);
    expect(llm[1]).toMatchObject({ status: "SUCCESS", output: "Orders ship in 2 days." });
  });

  it("records generateContentStream when the stream has been consumed, with usage; function calls too", async () => {
    const { llm } = await llmSpans(async () => {
      const stream = await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents: [{ role: "user", parts: [{ text: "When?" }] }] });
      let text = "";
      for await (const chunk of stream) text += chunk.text ?? "";
      expect(text).toBe("Orders ship in 2 days.");
      const tooled = await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents: "Where is my order?", config: { tools } });
      for await (const _chunk of tooled) {
        // consume
      }
    });
    expect(llm[0]).toMatchObject({ name: "gemini.generateContentStream", status: "SUCCESS", output: "Orders ship in 2 days.", inputTokenCount: expect.any(Number) });
    expect(llm[0]!.outputTokenCount).toBeGreaterThan(1);
    expect(llm[1]).toMatchObject({ status: "SUCCESS", toolsCalled: [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }] });
  });

  it("records chats (which call models.generateContent) as llm spans", async () => {
    const { llm } = await llmSpans(async () => {
      const chat = ai.chats.create({ model: "gemini-2.0-flash" });
      await chat.sendMessage({ message: "When do orders ship?" });
      await chat.sendMessage({ message: "And refunds?" });
    });
    expect(llm).toHaveLength(2);
    expect(llm[1]!.input).toEqual([
      { role: "user", content: "When do orders ship?" },
      { role: "assistant", content: "Orders ship in 2 days." },
      { role: "user", content: "And refunds?" },
    ]);
  });

  it("records errors as ERRORED and rethrows the SDK's own error; a stream error and a stream left early too", async () => {
    const { llm } = await llmSpans(async () => {
      const err = await ai.models.generateContent({ model: "error-429", contents: "x" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      const stream = await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents: "x", config: { httpOptions: { headers: { "x-fake-stream-error-after": "2" } } } });
      const streamErr = await (async () => {
        for await (const _c of stream) {
          // consume
        }
      })().catch((e: unknown) => e);
      expect(streamErr).toBeInstanceOf(Error);
      const left = await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents: "x" });
      for await (const _c of left) break;
    });
    expect(llm.map((s) => s.status)).toEqual(["ERRORED", "ERRORED", "ERRORED"]);
    expect(llm[0]!.error).toContain("exceeded your current quota");
    expect(llm[2]!.error).toBe("stream cut short: the app stopped reading before its end");
  });
});

describe("wrapGoogleGenAI: streaming timings in the llm span's metadata", () => {
  it("generateContentStream: time to first token and tokens per second; none for generateContent", async () => {
    const { llm } = await llmSpans(async () => {
      const stream = await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents: "When?", config: { httpOptions: { headers: { "x-fake-stream-delay-ms": "15" } } } });
      for await (const _c of stream);
      await ai.models.generateContent({ model: "gemini-2.0-flash", contents: "When?" });
    });
    // Every chunk holds a piece of text: the first one (sent at once) is the first token.
    expectStreamTimings(llm[0]!, { minTtftMs: 0, tokens: 4 });
    expect(timingsOf(llm[0]!).ttft).toBeGreaterThan(0);
    expect(timingsOf(llm[1]!)).toEqual({ ttft: undefined, tps: undefined });
  });
});

describe("wrapGoogleGenAI is invisible to the app", () => {
  it("patches the instance (not the class) and keeps the client, the models object and the SDK's promise", async () => {
    const raw = newClient();
    const models = raw.models;
    const wrapped = wrapGoogleGenAI(raw);
    expect(wrapped).toBe(raw);
    expect(wrapped.models).toBe(models);
    expect(Object.keys(wrapped.models)).toEqual(Object.keys(newClient().models));
    // Another client of the same class is not traced by this one's wrapping.
    expect(newClient().models.generateContent).not.toBe(wrapped.models.generateContent);
    const { llm } = await llmSpans(async () => {
      const promise = wrapped.models.generateContent({ model: "gemini-2.0-flash", contents: "y" });
      expect(promise).toBeInstanceOf(Promise);
      expect((await promise).text).toBe("Orders ship in 2 days.");
    });
    expect(llm).toHaveLength(1);
  });

  it("gives the same results and the same errors, at the same time, as the raw client", async () => {
    const raw = newClient();
    const wrapped = wrapGoogleGenAI(newClient());
    const strip = (r: object) => JSON.parse(JSON.stringify({ ...r, responseId: "", sdkHttpResponse: undefined }));
    const a = await raw.models.generateContent({ model: "gemini-2.0-flash", contents: "y" });
    const b = await wrapped.models.generateContent({ model: "gemini-2.0-flash", contents: "y" });
    expect(b.constructor).toBe(a.constructor);
    expect(strip(b)).toEqual(strip(a));
    // Bad input: a rejection in both (never a synchronous throw from our code).
    const outcome = (c: GoogleGenAI) => {
      try {
        return c.models.generateContent(undefined as never).then(
          () => "resolved",
          (e: Error) => `rejected ${e.constructor.name}: ${e.message}`,
        );
      } catch (e) {
        return Promise.resolve(`threw ${(e as Error).constructor.name}`);
      }
    };
    expect(await outcome(wrapped)).toBe(await outcome(raw));
    for (const model of ["error-400", "error-503"]) {
      const x = (await raw.models.generateContent({ model, contents: "y" }).catch((e: unknown) => e)) as ApiError;
      const y = (await wrapped.models.generateContent({ model, contents: "y" }).catch((e: unknown) => e)) as ApiError;
      expect(y.constructor).toBe(x.constructor);
      expect([y.status, y.message]).toEqual([x.status, x.message]);
    }
    // Content the SDK takes (a BigInt somewhere) never throws from our code.
    const big = await wrapped.models.generateContent({ model: "gemini-2.0-flash", contents: [{ role: "user", parts: [{ text: "y", big: 1n } as never] }] }).catch((e: unknown) => e);
    const bigRaw = await raw.models.generateContent({ model: "gemini-2.0-flash", contents: [{ role: "user", parts: [{ text: "y", big: 1n } as never] }] }).catch((e: unknown) => e);
    expect((big as object).constructor).toBe((bigRaw as object).constructor);
  });

  it("is idempotent: wrapping twice records one span per call", async () => {
    const client = wrapGoogleGenAI(wrapGoogleGenAI(newClient()));
    const { llm } = await llmSpans(async () => {
      await client.models.generateContent({ model: "gemini-2.0-flash", contents: "once" });
    });
    expect(llm).toHaveLength(1);
  });

  it("leaves calls untouched when tracing is off", async () => {
    const before = Object.keys(dev.state.traces).length;
    configureForTest(dev.url, "", {});
    const plain = wrapGoogleGenAI(newClient());
    const r = await plain.models.generateContent({ model: "gemini-2.0-flash", contents: "z" });
    expect(r.text).toBe("Orders ship in 2 days.");
    await flush();
    expect(Object.keys(dev.state.traces).length).toBe(before);
    configureForTest(dev.url, dev.projectKey);
  });
});
