import { LangChainInstrumentation } from "@traceloop/instrumentation-langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush } from "../../../src/index.js";
import { llmSpans, nothingLeftOpen, outline, requireCjs, startBridge, traceNamed } from "./bridge.js";
import { expectLangChainLlm, langChainScenario, langChainToolRoundTrip } from "./langchain-scenario.js";

// The real @traceloop/instrumentation-langchain, instrumenting LangChain's callback manager as
// its README says.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  // Its chain can take over 300 ms on a loaded machine (a trace held longer is sent in parts).
  bridge = await startBridge({ maxTraceDurationMillis: 5000 });
  new LangChainInstrumentation({ traceContent: true }).manuallyInstrument({ callbackManagerModule: requireCjs("@langchain/core/callbacks/manager") });
});
afterAll(() => bridge.close());

describe("OpenLLMetry (Traceloop) LangChain instrumentation", () => {
  it("lands the chain, its model call and the tool, readable, in the observe() agent's trace", async () => {
    await langChainScenario(bridge.fake.url, "tl-lc-agent");
    await new Promise((r) => setTimeout(r, 600));
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "tl-lc-agent");
    // This instrumentation records the chain's steps beside the chain, not under it (siblings of
    // equal start time come in either order, so they are compared as a set).
    expect([...outline(t)].sort()).toEqual([
      "agent tl-lc-agent",
      "  base RunnableSequence",
      "  base prompt",
      "  llm chat gpt-4o-mini",
      "  base parser",
      "  tool DynamicStructuredTool",
      "  llm chat error-400",
    ].sort());
    expectLangChainLlm(t);
    expect(t.spans.find((s) => s.name === "RunnableSequence")).toMatchObject({ input: '{"question":"When do orders ship?"}', output: "Orders ship in 2 days." });
    expect(t.spans.find((s) => s.type === "tool")).toMatchObject({ input: { orderId: "A-1001" }, output: "order A-1001 shipped" });
    expect(nothingLeftOpen()).toBe(true);
  });
  // This instrumentation (0.27) writes each message as one text part: an assistant's tool calls
  // and a tool message's tool_call_id are not in its spans at all, so there is no id to keep.
  it("a tool call round trip: user, assistant and tool messages in order, and no tool call or id made up where the instrumentation records none", async () => {
    await langChainToolRoundTrip(bridge.fake.url, "tl-lc-tools");
    expect(await flush()).toMatchObject({ ok: true });
    const answer = llmSpans(traceNamed(bridge.dev, "tl-lc-tools"))[1]!;
    expect(answer.input).toEqual([
      { role: "user", content: "Where is order A-1001? use lookup_order" },
      { role: "assistant", content: "" },
      { role: "tool", content: "order A-1001 shipped" },
    ]);
  });
});
