import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { trace } from "@opentelemetry/api";
import type OpenAIType from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNFINISHED_SPAN_KEY, UNFINISHED_SPANS_KEY } from "../../../src/traces/unfinished.js";
import { flush, stats } from "../../../src/index.js";
import { nothingLeftOpen, requireCjs, startBridge } from "./bridge.js";

// OpenInference's OpenAI instrumentation (4.2.7) never ends the span of a call that rejects. With
// no observe() around it, that span is its trace's only span: it must still reach the service
// (marked unfinished, counted), not be let go as if it were a long-lived HTTP span.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let OpenAI: typeof OpenAIType;
beforeAll(async () => {
  bridge = await startBridge();
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });
  OpenAI = requireCjs("openai");
});
afterAll(() => bridge.close());

describe("an instrumentation's llm span that never ends, alone in its trace", () => {
  it("is sent as an unfinished llm span of its own trace, counted in tracesForceEnded; an unread foreign span left open is still let go", async () => {
    const before = stats().tracesForceEnded;
    // A span no convention reads, never ended (a long-lived request, say): let go as before.
    trace.getTracer("app").startSpan("GET /events");
    const client = new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: "error-429", messages: [{ role: "user", content: "too many?" }] })).rejects.toThrow(/429/);
    await new Promise((r) => setTimeout(r, 600)); // past maxTraceDurationMillis
    expect(await flush()).toMatchObject({ ok: true });
    const traces = Object.values(bridge.dev.state.traces);
    expect(traces).toHaveLength(1);
    const [only] = traces;
    expect(only!.spans).toHaveLength(1);
    const span = only!.spans[0]!;
    expect(span.type).toBe("llm");
    expect(JSON.stringify(span.input)).toContain("too many?");
    expect((span.metadata as Record<string, unknown> | undefined)?.[UNFINISHED_SPAN_KEY]).toBe(true);
    expect((only!.fields.metadata as Record<string, unknown> | undefined)?.[UNFINISHED_SPANS_KEY]).toBe(1);
    expect(stats().tracesForceEnded).toBe(before + 1);
    expect(nothingLeftOpen()).toBe(true);
  });
});
