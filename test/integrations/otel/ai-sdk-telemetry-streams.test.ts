import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, streamObject, streamText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredSpan, StoredTrace } from "../../../src/devserver/store/store.js";
import { flush, observe } from "../../../src/index.js";
import { startBridge, traceNamed } from "./bridge.js";

// The AI SDK 6's own telemetry (experimental_telemetry on, the app's provider with
// EvaltraceSpanProcessor; no zero-code): the SDK ends a stream's spans OK even when the provider
// sent an error mid-stream (it goes to onError, not to the app's loop) or when the app aborted it.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let openai: ReturnType<typeof createOpenAI>;
beforeAll(async () => {
  bridge = await startBridge();
  openai = createOpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url });
});
afterAll(() => bridge.close());

const telemetry = () => ({ isEnabled: true, tracer: bridge.provider.getTracer("app") });
const named = (t: StoredTrace, name: string): StoredSpan => {
  const found = t.spans.find((s) => s.name === name);
  if (!found) throw new Error(`no span ${name} in ${t.spans.map((s) => s.name).join(", ")}`);
  return found;
};
const llm = (t: StoredTrace): StoredSpan => {
  const found = t.spans.filter((s) => s.type === "llm");
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe("AI SDK 6 telemetry through EvaltraceSpanProcessor: streams", () => {
  it("a provider error mid-stream makes the llm span and the streamText span ERRORED, with the text streamed before it", async () => {
    await observe({ name: "mid-stream-error" }, async () => {
      const result = streamText({ model: openai.chat("gpt-4o-mini"), prompt: "When do orders ship?", headers: { "x-fake-stream-error-after": "3" }, onError: () => {}, experimental_telemetry: telemetry() });
      for await (const _ of result.textStream) {
        // read to its end, as the app does; the SDK hands the error to onError
      }
    })();
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "mid-stream-error");
    const model = llm(t);
    expect(model.status).toBe("ERRORED");
    expect(model.error).toMatch(/finish reason: error/);
    expect(String(model.output)).toMatch(/\S/);
    expect(named(t, "ai.streamText").status).toBe("ERRORED");
  });

  it("a stream aborted by the app's AbortController makes the streamText span ERRORED, saying it was cut short", async () => {
    await observe({ name: "aborted-stream" }, async () => {
      const controller = new AbortController();
      const result = streamText({ model: openai.chat("gpt-4o-mini"), prompt: "Tell me a long story", abortSignal: controller.signal, experimental_telemetry: telemetry() });
      let chunks = 0;
      try {
        for await (const _ of result.textStream) if (++chunks === 2) controller.abort();
      } catch {
        // an abort may or may not reject the loop, by version
      }
    })();
    await new Promise((r) => setTimeout(r, 600)); // past maxTraceDurationMillis: the SDK never ends the model call's span
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "aborted-stream");
    const call = named(t, "ai.streamText");
    expect(call.status).toBe("ERRORED");
    expect(call.error).toMatch(/cut short/);
  });

  it("streams read to their end stay SUCCESS: streamText and streamObject (whose call span carries the object, not a finish reason)", async () => {
    await observe({ name: "complete-streams" }, async () => {
      const text = streamText({ model: openai.chat("gpt-4o-mini"), prompt: "When do orders ship?", experimental_telemetry: telemetry() });
      for await (const _ of text.textStream) {
        // read to its end
      }
      const object = streamObject({ model: openai.chat("gpt-4o-mini"), schema: jsonSchema<{ answer: string }>({ type: "object", properties: { answer: { type: "string" } }, required: ["answer"] }), prompt: "Answer in JSON", experimental_telemetry: telemetry() });
      for await (const _ of object.partialObjectStream) {
        // read to its end
      }
    })();
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "complete-streams");
    for (const name of ["ai.streamText", "ai.streamText.doStream", "ai.streamObject", "ai.streamObject.doStream"]) expect([name, named(t, name).status]).toEqual([name, "SUCCESS"]);
  });
});
