import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import type OpenAIType from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush, observe } from "../../../src/index.js";
import { nothingLeftOpen, outline, requireCjs, startBridge, traceNamed } from "./bridge.js";

// The real @arizeai/openinference-instrumentation-openai, registered as its README says, on the
// app's provider that has EvaltraceSpanProcessor beside its own exporter.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let OpenAI: typeof OpenAIType;
beforeAll(async () => {
  bridge = await startBridge();
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });
  OpenAI = requireCjs("openai");
});
afterAll(() => bridge.close());

describe("OpenInference OpenAI instrumentation", () => {
  it("lands every call, typed and readable, in the trace of the observe() agent around it", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 });
    const broken = new OpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:9", maxRetries: 0 });
    const agent = observe({ type: "agent", name: "oi-agent" }, async (q: string) => {
      const reply = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "You are a support bot." },
          { role: "user", content: q },
        ],
      });
      const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "and returns?" }] });
      for await (const _ of stream) {
        // consumed
      }
      await broken.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] }).catch(() => undefined);
      return reply.choices[0]!.message.content;
    });
    expect(await agent("When do orders ship?")).toBe("Orders ship in 2 days.");
    expect(await flush()).toMatchObject({ ok: true });
    // The instrumentation never ends the span of a call that failed to connect: past
    // maxTraceDurationMillis it is closed at that time and sent marked unfinished.
    await new Promise((r) => setTimeout(r, 600));
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "oi-agent");
    expect(outline(t)).toEqual(["agent oi-agent", "  llm OpenAI Chat Completions", "  llm OpenAI Chat Completions", "  llm OpenAI Chat Completions"]);
    const [first, streamed, failed] = t.spans.filter((s) => s.name === "OpenAI Chat Completions").sort((a, b) => a.startTime.localeCompare(b.startTime));
    expect(first).toMatchObject({
      model: "gpt-4o-mini-2024-07-18",
      provider: "openai",
      inputTokenCount: 11,
      outputTokenCount: 4,
      input: [
        { role: "system", content: "You are a support bot." },
        { role: "user", content: "When do orders ship?" },
      ],
      output: "Orders ship in 2 days.",
      integration: "OpenInference",
      status: "SUCCESS",
    });
    expect(streamed).toMatchObject({ input: [{ role: "user", content: "and returns?" }], output: "Orders ship in 2 days.", status: "SUCCESS" });
    expect(failed!.metadata).toMatchObject({ "evaltrace.unfinished": true });
    expect(nothingLeftOpen()).toBe(true);
  });
});
