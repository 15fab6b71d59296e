import { inspect } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { startFakeAnthropic, startFakeGoogleGenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown, stats } from "../../src/index.js";
import { wrapAnthropic } from "../../src/integrations/anthropic.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fakeOpenAI: Awaited<ReturnType<typeof startFakeOpenAI>>;
let fakeAnthropic: Awaited<ReturnType<typeof startFakeAnthropic>>;
let fakeGoogle: Awaited<ReturnType<typeof startFakeGoogleGenAI>>;
let logger: ReturnType<typeof configureForTest>;
let openai: OpenAI;
let anthropic: Anthropic;
let openaiBefore = "";

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fakeOpenAI = await startFakeOpenAI();
  fakeAnthropic = await startFakeAnthropic();
  fakeGoogle = await startFakeGoogleGenAI();
  logger = configureForTest(dev.url, dev.projectKey, { logLevel: "debug" });
  const plain = new OpenAI({ apiKey: "sk-test", baseURL: fakeOpenAI.url, maxRetries: 0 });
  openaiBefore = inspect(plain, { depth: 4, showHidden: false });
  openai = wrapOpenAI(plain);
  anthropic = wrapAnthropic(new Anthropic({ apiKey: "sk-ant-test", baseURL: fakeAnthropic.url, maxRetries: 0 }));
});
afterAll(async () => {
  await shutdown(0);
  await fakeOpenAI.close();
  await fakeAnthropic.close();
  await fakeGoogle.close();
  await dev.close();
});

/** Runs `fn` in a root span and returns the llm spans the emulator stored for that trace. */
async function llmSpans(fn: () => Promise<unknown>): Promise<StoredSpan[]> {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  return dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
}

const byNet = (span: StoredSpan | undefined) => (span?.metadata as Record<string, unknown> | undefined)?.["evaltrace.recordedBy"];
const question = [{ role: "user" as const, content: "When do orders ship?" }];

describe("the net records openai requests no wrapped method saw", () => {
  it("client.post('/chat/completions') is one llm span recorded by the net, with input, output and tokens", async () => {
    const netBefore = stats().netSpans;
    const llm = await llmSpans(() => openai.post("/chat/completions", { body: { model: "gpt-4o-mini", messages: question } }));
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", provider: "OpenAI", model: "gpt-4o-mini-2024-07-18", input: question, output: "Orders ship in 2 days.", inputTokenCount: 11, outputTokenCount: 4 });
    expect(stats().netSpans).toBe(netBefore + 1);
    expect(logger.lines.filter((l) => l.startsWith("debug:") && l.includes("openai") && l.includes("/chat/completions"))).toHaveLength(1);
  });

  it("a streamed client.post('/chat/completions') is one llm span ending with the streamed text and tokens", async () => {
    const llm = await llmSpans(async () => {
      const stream = (await openai.post("/chat/completions", { body: { model: "gpt-4o-mini", messages: question, stream: true, stream_options: { include_usage: true } }, stream: true })) as AsyncIterable<unknown>;
      for await (const _ of stream) {
        // read it all
      }
    });
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", input: question, output: "Orders ship in 2 days.", outputTokenCount: 4 });
  });

  it("a call through the wrapped chat.completions.create is still exactly one llm span, not recorded by the net", async () => {
    const llm = await llmSpans(() => openai.chat.completions.create({ model: "gpt-4o-mini", messages: question }));
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBeUndefined();
    expect(llm[0]).toMatchObject({ name: "openai.chat.completions", output: "Orders ship in 2 days." });
  });

  it("a streamed wrapped call is still exactly one llm span", async () => {
    const llm = await llmSpans(async () => {
      const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: question, stream: true });
      for await (const _ of stream) {
        // read it all
      }
    });
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBeUndefined();
  });

  it("util.inspect of the client and its own property names are the same after the net recorded a request", async () => {
    const names = Object.getOwnPropertyNames(openai);
    await llmSpans(() => openai.post("/chat/completions", { body: { model: "gpt-4o-mini", messages: question } }));
    expect(inspect(openai, { depth: 4, showHidden: false })).toBe(openaiBefore);
    expect(Object.getOwnPropertyNames(openai)).toEqual(names);
  });

  it("client.post('/responses'), streamed, is one llm span with the text and tokens of its completed response", async () => {
    const llm = await llmSpans(async () => {
      const stream = (await openai.post("/responses", { body: { model: "gpt-4o-mini", instructions: "Be brief", input: "When do orders ship?", stream: true }, stream: true })) as AsyncIterable<unknown>;
      for await (const _ of stream) {
        // read it all
      }
    });
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", input: [{ role: "system", content: "Be brief" }, ...question], output: "Orders ship in 2 days." });
    expect(llm[0]!.outputTokenCount).toBeGreaterThan(0);
  });

  it("a request to an endpoint outside the table (a models list) records nothing", async () => {
    const llm = await llmSpans(() => openai.get("/models").catch(() => undefined));
    expect(llm).toHaveLength(0);
  });

  it("a client nobody wrapped is left alone by the net of a wrapped one", async () => {
    const other = new OpenAI({ apiKey: "sk-test", baseURL: fakeOpenAI.url, maxRetries: 0 });
    const llm = await llmSpans(() => other.post("/chat/completions", { body: { model: "gpt-4o-mini", messages: question } }));
    expect(llm).toHaveLength(0);
  });
});

describe("the net records anthropic requests no wrapped method saw", () => {
  const body = { model: "claude-sonnet-4-5", max_tokens: 100, system: "Be brief", messages: question };

  it("client.post('/v1/messages') is one llm span recorded by the net, with input, output and tokens", async () => {
    const llm = await llmSpans(() => anthropic.post("/v1/messages", { body }));
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", provider: "Anthropic", input: [{ role: "system", content: "Be brief" }, ...question], output: "Orders ship in 2 days." });
    expect(llm[0]!.inputTokenCount).toBeGreaterThan(0);
    expect(llm[0]!.outputTokenCount).toBeGreaterThan(0);
  });

  it("a streamed client.post('/v1/messages') is one llm span with the streamed text", async () => {
    const llm = await llmSpans(async () => {
      const stream = (await anthropic.post("/v1/messages", { body: { ...body, stream: true }, stream: true })) as AsyncIterable<unknown>;
      for await (const _ of stream) {
        // read it all
      }
    });
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", output: "Orders ship in 2 days." });
    expect(llm[0]!.outputTokenCount).toBeGreaterThan(0);
  });

  it("a stream the app leaves (break) ends its net span, errored, with the text read so far; the app's break is not held up by the net's branch", async () => {
    let leftInMillis = Number.NaN;
    const llm = await llmSpans(async () => {
      // 250 ms between events: the rest of the stream would take seconds.
      const stream = (await anthropic.post("/v1/messages", { body: { ...body, stream: true }, stream: true, headers: { "x-fake-stream-delay-ms": "250" } })) as AsyncIterable<{ type?: string }>;
      let breakAt = 0;
      try {
        for await (const event of stream) {
          if (event.type === "content_block_delta") {
            breakAt = performance.now();
            break;
          }
        }
      } finally {
        leftInMillis = performance.now() - breakAt;
      }
    });
    // Anthropic's SDK awaits the cancel of its branch, which a tee holds until the other branch is cancelled too.
    expect(leftInMillis).toBeLessThan(1000);
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]!.status).toBe("ERRORED");
    const output = String(llm[0]!.output);
    expect(output.length).toBeGreaterThan(0);
    expect("Orders ship in 2 days.".startsWith(output) && output !== "Orders ship in 2 days.").toBe(true);
  });

  it("a wrapped messages.create (streamed or not) is still exactly one llm span", async () => {
    const plain = await llmSpans(() => anthropic.messages.create(body));
    const streamed = await llmSpans(async () => {
      const stream = await anthropic.messages.create({ ...body, stream: true });
      for await (const _ of stream) {
        // read it all
      }
    });
    expect([plain.length, streamed.length]).toEqual([1, 1]);
    expect([byNet(plain[0]), byNet(streamed[0])]).toEqual([undefined, undefined]);
  });
});

describe("the net records google genai requests no wrapped method saw", () => {
  it("a wrapped generateContent is still exactly one llm span, not recorded by the net", async () => {
    const genai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "g-test", httpOptions: { baseUrl: fakeGoogle.url } }));
    const llm = await llmSpans(() => genai.models.generateContent({ model: "gemini-2.5-flash", contents: "When do orders ship?" }));
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBeUndefined();
  });

  it("a :generateContent request made through apiClient.request, below the wrapped methods, is one llm span recorded by the net", async () => {
    const genai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "g-test", httpOptions: { baseUrl: fakeGoogle.url } }));
    const api = (genai.models as unknown as { apiClient: { request(r: object): Promise<unknown> } }).apiClient;
    const llm = await llmSpans(() =>
      api.request({ path: "models/gemini-2.5-flash:generateContent", httpMethod: "POST", body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "When do orders ship?" }] }] }) }),
    );
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", provider: "Gemini", input: [{ role: "user", content: "When do orders ship?" }], output: "Orders ship in 2 days." });
    expect(llm[0]!.outputTokenCount).toBeGreaterThan(0);
  });

  it("a :streamGenerateContent request made through apiClient.requestStream is one llm span with the streamed text", async () => {
    const genai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "g-test", httpOptions: { baseUrl: fakeGoogle.url } }));
    const api = (genai.models as unknown as { apiClient: { requestStream(r: object): Promise<AsyncIterable<unknown>> } }).apiClient;
    const llm = await llmSpans(async () => {
      const chunks = await api.requestStream({ path: "models/gemini-2.5-flash:streamGenerateContent", httpMethod: "POST", body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "When do orders ship?" }] }] }) });
      for await (const _ of chunks) {
        // read it all
      }
    });
    expect(llm).toHaveLength(1);
    expect(byNet(llm[0])).toBe("net");
    expect(llm[0]).toMatchObject({ status: "SUCCESS", model: expect.stringMatching(/gemini/), input: [{ role: "user", content: "When do orders ship?" }], output: "Orders ship in 2 days." });
  });
});
