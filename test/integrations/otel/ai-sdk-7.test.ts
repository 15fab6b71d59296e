import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush, observe } from "../../../src/index.js";
import { nothingLeftOpen, outline, requireCjs, startBridge, traceNamed } from "./bridge.js";
import { node22Installed, node22Missing, requireNode22 } from "../../helpers/node22.js";
import { runsHere, runtimeName } from "../../helpers/skips.js";

// AI SDK 7 moved telemetry to integrations: `registerTelemetry(new OpenTelemetry())` from
// `@ai-sdk/otel` emits OTel GenAI spans on the global provider, where EvaltraceSpanProcessor
// reads them. ai 7 needs Node 22: on older Node this file says so and skips (run it with
// `npm run test:runtimes`).
const major = Number(process.versions.node.split(".")[0]);
const supported =
  runsHere(major >= 22 && !("Bun" in globalThis), "test/integrations/otel/ai-sdk-7.test.ts", `ai 7 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`) &&
  runsHere(node22Installed, "test/integrations/otel/ai-sdk-7.test.ts", node22Missing);

let bridge: Awaited<ReturnType<typeof startBridge>>;
// The ai 7 that @ai-sdk/otel itself loads (from test/node22; ai 6 is the package's own devDependency).
const fromOtel = supported ? requireCjs("module").createRequire(requireNode22.resolve("@ai-sdk/otel")) : undefined;
beforeAll(async () => {
  if (!supported) return;
  bridge = await startBridge();
  const { registerTelemetry } = fromOtel!("ai");
  const { OpenTelemetry } = requireNode22("@ai-sdk/otel");
  registerTelemetry(new OpenTelemetry());
});
afterAll(() => bridge?.close());

describe.skipIf(!supported)("AI SDK 7 with @ai-sdk/otel", () => {
  it("generateText with a tool, inside an observe() agent: one trace, typed and readable", async () => {
    const { generateText, tool, stepCountIs } = fromOtel!("ai");
    const { createOpenAI } = requireNode22("ai-sdk-openai-4");
    const { z } = requireCjs("zod");
    const openai = createOpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url });
    const agent = observe({ type: "agent", name: "ai7-agent" }, async (q: string) => {
      const result = await generateText({
        model: openai.chat("gpt-4o-mini"),
        system: "You are a support bot.",
        prompt: q,
        tools: { lookup_order: tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }: { orderId: string }) => `order ${orderId} shipped` }) },
        stopWhen: stepCountIs(3),
      });
      return result.text;
    });
    expect(await agent("Where is order A-1001? use lookup_order")).toBe("Orders ship in 2 days.");
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "ai7-agent");
    const lines = outline(t);
    expect(lines[0]).toBe("agent ai7-agent");
    expect(lines.filter((l) => l.trim().startsWith("llm "))).toHaveLength(2);
    expect(lines.filter((l) => l.trim().startsWith("tool "))).toHaveLength(1);
    const llm = t.spans.filter((s) => s.type === "llm").sort((a, b) => a.startTime.localeCompare(b.startTime));
    expect(llm[0]).toMatchObject({ model: expect.stringContaining("gpt-4o-mini"), inputTokenCount: 20, outputTokenCount: 7 });
    expect(llm[0]!.input).toEqual(expect.arrayContaining([{ role: "system", content: "You are a support bot." }]));
    expect(llm[0]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
    expect(llm[1]).toMatchObject({ output: "Orders ship in 2 days." });
    expect(t.spans.find((s) => s.type === "tool")).toMatchObject({ input: { orderId: "A-1001" } });
    expect(nothingLeftOpen()).toBe(true);
  });

  it("a ToolLoopAgent run alone: its invoke_agent span is the trace's agent root with the prompt as input and the answer as output", async () => {
    const { ToolLoopAgent, tool, stepCountIs } = fromOtel!("ai");
    const { createOpenAI } = requireNode22("ai-sdk-openai-4");
    const { z } = requireCjs("zod");
    const openai = createOpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url });
    const agent = new ToolLoopAgent({
      id: "support-agent",
      model: openai.chat("gpt-4o-mini"),
      instructions: "You are a support bot.",
      tools: { lookup_order: tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }: { orderId: string }) => `order ${orderId} shipped` }) },
      stopWhen: stepCountIs(3),
      experimental_telemetry: { functionId: "support-agent" },
    });
    const result = await agent.generate({ prompt: "Where is order A-1001? use lookup_order" });
    expect(result.text).toBe("Orders ship in 2 days.");
    expect(await flush()).toMatchObject({ ok: true });
    const t = Object.values(bridge.dev.state.traces).find((x) => x.spans.some((s) => s.type === "agent" && !s.parentUuid && s.name !== "ai7-agent"))!;
    const root = t.spans.find((s) => !s.parentUuid)!;
    expect(root.type).toBe("agent");
    expect(root.input).toEqual(expect.arrayContaining([{ role: "user", content: "Where is order A-1001? use lookup_order" }]));
    expect(root.output).toBe("Orders ship in 2 days.");
    // The trace's input and output are its root's (trace-level values are strings on the wire).
    expect(t.fields.output).toBe("Orders ship in 2 days.");
    expect(String(t.fields.input)).toContain("Where is order A-1001?");
  });
  it("a streamText the app aborts (its AbortController) is ERRORED on its invoke_agent and chat spans, which @ai-sdk/otel ends with no status and no finish reason (issue 42)", async () => {
    const { streamText } = fromOtel!("ai");
    const { createOpenAI } = requireNode22("ai-sdk-openai-4");
    const openai = createOpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url });
    await observe({ name: "ai7-aborted" }, async () => {
      const controller = new AbortController();
      // Paced, so that the abort comes while the model is still answering.
      const result = streamText({ model: openai.chat("gpt-4o-mini"), prompt: "Tell me a long story", abortSignal: controller.signal, headers: { "x-fake-stream-delay-ms": "30" } });
      let chunks = 0;
      try {
        for await (const _ of result.textStream) if (++chunks === 2) controller.abort();
      } catch {
        // an abort may or may not reject the loop
      }
    })();
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "ai7-aborted");
    // The call (invoke_agent, an agent span) and its model call (chat, an llm span); the step
    // span between them carries no finish reason even when it ends normally: it says nothing.
    const ours = t.spans.filter((s) => s.type === "llm" || s.type === "agent");
    expect(ours.map((s) => s.type).sort()).toEqual(["agent", "llm"]);

    for (const s of ours) expect(s, String(s.name)).toMatchObject({ status: "ERRORED", error: expect.stringContaining("aborted") });
  });

  it("a streamText read to its end stays SUCCESS (its spans carry their finish reason)", async () => {
    const { streamText } = fromOtel!("ai");
    const { createOpenAI } = requireNode22("ai-sdk-openai-4");
    const openai = createOpenAI({ apiKey: "sk-test", baseURL: bridge.fake.url });
    await observe({ name: "ai7-read" }, async () => {
      const result = streamText({ model: openai.chat("gpt-4o-mini"), prompt: "When do orders ship?" });
      for await (const _ of result.textStream) {
        // read to its end
      }
    })();
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "ai7-read");
    expect(t.spans.every((s) => s.status === "SUCCESS")).toBe(true);
    expect(t.spans.find((s) => s.type === "llm")).toMatchObject({ output: "Orders ship in 2 days." });
  });
});
