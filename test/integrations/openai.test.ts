import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let openai: OpenAI;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }), { metricCollection: "answers" });
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

describe("wrapOpenAI with the real openai package", () => {
  it("records chat completions as llm spans", async () => {
    const { root, llm } = await llmSpans(async () => {
      const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "system", content: "Be brief" }, { role: "user", content: "When do orders ship?" }] });
      expect(r.choices[0]!.message.content).toBe("Orders ship in 2 days.");
    });
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({
      name: "openai.chat.completions",
      parentUuid: root.uuid,
      status: "SUCCESS",
      model: "gpt-4o-mini-2024-07-18",
      provider: "OpenAI",
      integration: "OpenAI",
      input: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      inputTokenCount: 11,
      outputTokenCount: 4,
      metricCollection: "answers",
      llmTestCase: { input: "When do orders ship?", actualOutput: "Orders ship in 2 days." },
    });
  });

  it("records a streamed chat completion when the stream has been consumed, with usage", async () => {
    const { llm } = await llmSpans(async () => {
      const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "When?" }] });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
      expect(text).toBe("Orders ship in 2 days.");
    });
    expect(llm[0]).toMatchObject({ output: "Orders ship in 2 days.", inputTokenCount: 11, outputTokenCount: 4, model: "gpt-4o-mini-2024-07-18" });
  });

  it("records the responses API, plain and streamed", async () => {
    const { llm } = await llmSpans(async () => {
      const r = await openai.responses.create({ model: "gpt-4.1-mini", instructions: "Be brief", input: "When do orders ship?" });
      expect(r.output_text).toBe("Orders ship in 2 days.");
      const stream = await openai.responses.create({ model: "gpt-4.1-mini", input: "And refunds?", stream: true });
      for await (const _event of stream) {
        // consume
      }
    });
    expect(llm.map((s) => [s.name, s.output, s.inputTokenCount, s.outputTokenCount])).toEqual([
      ["openai.responses", "Orders ship in 2 days.", 9, 4],
      ["openai.responses", "Orders ship in 2 days.", 9, 4],
    ]);
    expect(llm[0]!.input).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: "When do orders ship?" },
    ]);
  });

  it("records errors and rethrows the SDK's own error; keeps withResponse()", async () => {
    const { llm } = await llmSpans(async () => {
      const err = await openai.chat.completions.create({ model: "boom", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      const { data, response } = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "y" }] }).withResponse();
      expect(response.status).toBe(200);
      expect(data.choices[0]!.message.content).toBe("Orders ship in 2 days.");
    });
    expect(llm[0]).toMatchObject({ status: "ERRORED", error: expect.stringContaining("model boom does not exist") });
    expect(llm[1]).toMatchObject({ status: "SUCCESS" });
  });

  it("leaves the client untouched when tracing is off", async () => {
    const before = Object.keys(dev.state.traces).length;
    configureForTest(dev.url, "", {});
    const plain = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    const r = await plain.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "z" }] });
    expect(r.choices[0]!.message.content).toBe("Orders ship in 2 days.");
    await flush();
    expect(Object.keys(dev.state.traces).length).toBe(before);
    configureForTest(dev.url, dev.projectKey);
  });
});
