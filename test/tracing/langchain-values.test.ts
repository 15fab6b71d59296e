import { Document } from "@langchain/core/documents";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { flush, observe, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

// An observed function of the app's own that returns LangChain objects (an agent's state, a
// chain's messages): stored as what they stand for, never as {"lc":1,...} serialization blobs.

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

it("keeps LangChain messages and documents an observed function returns readable", async () => {
  const run = observe({ type: "agent", name: "lc-state" }, async (q: string) => ({
    messages: [new HumanMessage(q), new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "lookup_order", args: { id: "A-1" } }] })],
    docs: [new Document({ pageContent: "Orders ship in 2 days.", metadata: { source: "faq" } })],
  }));
  await run("Where is A-1?");
  await flush();
  const trace = Object.values(dev.state.traces).find((t) => t.spans.some((s) => s.name === "lc-state"))!;
  const stored = JSON.stringify(trace);
  expect(stored).not.toContain('"lc":1');
  const output = trace.spans.find((s) => s.name === "lc-state")!.output as { messages: unknown[]; docs: unknown[] };
  expect(output.messages[0]).toEqual({ role: "user", content: "Where is A-1?" });
  expect(output.messages[1]).toMatchObject({ role: "assistant", content: "", tool_calls: [{ id: "call_1", name: "lookup_order", args: { id: "A-1" } }] });
  expect(output.docs).toEqual([{ pageContent: "Orders ship in 2 days.", metadata: { source: "faq" } }]);
});
