import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import { SpanStatusCode, trace } from "@opentelemetry/api";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import type OpenAIType from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredTrace } from "../../../src/devserver/store/store.js";
import { deliver, observe, stats } from "../../../src/index.js";
import { UNFINISHED_SPAN_KEY } from "../../../src/traces/unfinished.js";
import { nothingLeftOpen, requireCjs, startBridge } from "./bridge.js";

// Issue 42: a call whose instrumentation never ends its span (OpenInference 4.2.7 leaves a
// rejected call's span open) used to stay open after deliver() returned, and nothing was stored
// until the process ended. deliver() now ends it, within its budget, as unfinished (with the
// error the span recorded, where it recorded one) and sends it.
let bridge: Awaited<ReturnType<typeof startBridge>>;
let OpenAI: typeof OpenAIType;
beforeAll(async () => {
  // Long: only deliver() may close these spans here, not the sweep.
  bridge = await startBridge({ maxTraceDurationMillis: 60_000 });
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });
  OpenAI = requireCjs("openai");
});
afterAll(() => bridge.close());

const withInput = (marker: string): StoredTrace[] => Object.values(bridge.dev.state.traces).filter((t) => t.spans.some((s) => JSON.stringify(s.input ?? null).includes(marker)));

describe("deliver() and a model call's span its instrumentation never ends", () => {
  it("a rejected call (429) through OpenInference, alone in its trace: stored by deliver(), an llm span marked unfinished, nothing left open", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: "error-429", messages: [{ role: "user", content: "rate-limited alone?" }] })).rejects.toThrow(/429/);
    const started = Date.now();
    expect(await deliver(undefined, 1000)).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(1500);
    const [t] = withInput("rate-limited alone?");
    expect(t, "stored by deliver()").toBeDefined();
    expect(t!.spans).toHaveLength(1);
    expect(t!.spans[0]).toMatchObject({ type: "llm", metadata: { [UNFINISHED_SPAN_KEY]: true } });
    expect(nothingLeftOpen()).toBe(true);
  });

  it("a GenAI span that recorded its error (exception event, ERROR status) and was never ended: stored by deliver() ERRORED with that error, marked unfinished", async () => {
    const span = trace.getTracer("some-instrumentation").startSpan("chat gpt-4o-mini", {
      attributes: { "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "bare and never ended" }] }]) },
    });
    span.recordException(new Error("429 Rate limit reached for gpt-4o-mini"));
    span.setStatus({ code: SpanStatusCode.ERROR, message: "429 Rate limit reached for gpt-4o-mini" });
    expect(await deliver(undefined, 1000)).toMatchObject({ ok: true });
    const [t] = withInput("bare and never ended");
    expect(t, "stored by deliver()").toBeDefined();
    expect(t!.spans[0]).toMatchObject({ type: "llm", status: "ERRORED", error: expect.stringContaining("429 Rate limit"), metadata: { [UNFINISHED_SPAN_KEY]: true } });
    expect(nothingLeftOpen()).toBe(true);
  });

  it("a GenAI span that recorded only an exception event (status unset) and was never ended: stored by deliver() ERRORED with the exception's message", async () => {
    const span = trace.getTracer("some-instrumentation").startSpan("chat gpt-4o-mini", {
      attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "exception only" }] }]) },
    });
    span.recordException(new Error("429 Too Many Requests"));
    expect(await deliver(undefined, 1000)).toMatchObject({ ok: true });
    const [t] = withInput("exception only");
    expect(t, "stored by deliver()").toBeDefined();
    expect(t!.spans[0]).toMatchObject({ type: "llm", status: "ERRORED", error: expect.stringContaining("429 Too Many Requests"), metadata: { [UNFINISHED_SPAN_KEY]: true } });
    expect(nothingLeftOpen()).toBe(true);
  });

  it("a span no convention reads, left open (a long-lived request), is not sent by deliver() and stays open", async () => {
    const before = stats().openTraces;
    const span = trace.getTracer("app").startSpan("GET /events");
    await deliver(undefined, 200);
    expect(stats().openTraces).toBe(before + 1);
    span.end();
  });

  it("under a handler that returned, the rejected call's unended span goes with its trace at deliver()", async () => {
    const client = new OpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url, maxRetries: 0 });
    await observe({ name: "handler" }, async () => {
      await client.chat.completions.create({ model: "error-429", messages: [{ role: "user", content: "rate-limited in handler?" }] }).catch(() => undefined);
    })();
    await deliver(undefined, 1000);
    const [t] = withInput("rate-limited in handler?");
    expect(t, "stored by deliver()").toBeDefined();
    expect(t!.spans.find((s) => s.type === "llm")).toMatchObject({ metadata: { [UNFINISHED_SPAN_KEY]: true } });
    expect(nothingLeftOpen()).toBe(true);
  });
});
