import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush, observe } from "../../../src/index.js";
import { nothingLeftOpen, outline, requireCjs, startBridge, traceNamed } from "./bridge.js";
import { expectLangChainLlm, expectToolCallIdsKept, langChainScenario, langChainToolRoundTrip } from "./langchain-scenario.js";

// The real @arizeai/openinference-instrumentation-langchain, instrumenting LangChain's callback
// manager as its README says.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  // Its scenario (a chain, a tool, a refused call) can take over 300 ms on a loaded machine; a
  // trace held longer than maxTraceDurationMillis is sent in parts, which re-roots the parser.
  bridge = await startBridge({ maxTraceDurationMillis: 5000 });
  new LangChainInstrumentation().manuallyInstrument(requireCjs("@langchain/core/callbacks/manager"));
});
afterAll(() => bridge.close());

describe("OpenInference LangChain instrumentation", () => {
  it("lands the chain, its model call and the tool, readable, in the observe() agent's trace", async () => {
    await langChainScenario(bridge.fake.url, "oi-lc-agent");
    await new Promise((r) => setTimeout(r, 600));
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "oi-lc-agent");
    expect(outline(t)).toEqual([
      "agent oi-lc-agent",
      "  base RunnableSequence",
      "    base ChatPromptTemplate",
      "    llm ChatOpenAI",
      "    base StrOutputParser",
      "  tool lookup_order",
      "  llm ChatOpenAI",
    ]);
    expectLangChainLlm(t);
    const sequence = t.spans.find((s) => s.name === "RunnableSequence")!;
    expect(sequence).toMatchObject({ input: "When do orders ship?", output: "Orders ship in 2 days." });
    expect(t.spans.find((s) => s.name === "lookup_order")).toMatchObject({ type: "tool", output: "order A-1001 shipped" });
    const refused = t.spans.filter((s) => s.type === "llm")[1]!;
    expect(refused).toMatchObject({ status: "ERRORED" });
    expect(String(refused.error)).toMatch(/400/);
    expect(nothingLeftOpen()).toBe(true);
  });

  it("a retriever: its documents are the span's output and retrievalContext", async () => {
    const { BaseRetriever } = requireCjs("@langchain/core/retrievers");
    const { Document } = requireCjs("@langchain/core/documents");
    class Docs extends BaseRetriever {
      lc_namespace = ["test"];
      async _getRelevantDocuments(query: string) {
        return [new Document({ pageContent: `Orders about ${query} ship in 2 days.` }), new Document({ pageContent: "Returns take 30 days." })];
      }
    }
    const rag = observe({ type: "agent", name: "oi-rag" }, async (q: string) => (await new Docs().invoke(q)).length);
    expect(await rag("shipping")).toBe(2);
    expect(await flush()).toMatchObject({ ok: true });
    const t = traceNamed(bridge.dev, "oi-rag");
    expect(outline(t)).toEqual(["agent oi-rag", "  retriever Docs"]);
    const docs = ["Orders about shipping ship in 2 days.", "Returns take 30 days."];
    expect(t.spans.find((s) => s.type === "retriever")).toMatchObject({ input: "shipping", output: docs, retrievalContext: docs });
  });
  it("a tool call round trip: the assistant's tool_calls keep call_1 and the tool message its tool_call_id call_1", async () => {
    await langChainToolRoundTrip(bridge.fake.url, "oi-lc-tools");
    expect(await flush()).toMatchObject({ ok: true });
    expectToolCallIdsKept(traceNamed(bridge.dev, "oi-lc-tools"));
  });
});
