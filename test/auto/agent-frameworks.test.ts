import { describe, expect, it } from "vitest";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import type { Finished } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";
import { zeroCodeRig } from "../helpers/zero-code-rig.js";

// The agent APIs of the frameworks zero-code claims, run unmodified under `--import
// evaltrace/auto` (children load dist/: build first with `npx tsup`) against the fake OpenAI
// server: each run's model calls are llm spans (each once), under an agent span, its tool call a
// tool span, in one trace.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/agent-frameworks.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

const rig = zeroCodeRig();
const runApp = (source: string) => rig.runApp("esm", source);
const { tracesOf } = rig;

/** The run's one trace: its model calls (llm spans, each once), an agent span above them, the tool's span. */
function expectAgentRun(f: Finished, marker: string, llmCalls: number): StoredSpan[] {
  // The OpenAI Agents SDK's own exporter to OpenAI has no key here: its warning is its business, not ours.
  expect(f.stderr.replace(/^No API key provided for OpenAI tracing exporter.*\n/m, ""), f.stderr).toBe("");
  expect(f.code).toBe(0);
  const traces = tracesOf(marker);
  expect(traces).toHaveLength(1);
  const spans = traces[0]!;
  const llm = spans.filter((s) => s.type === "llm");
  expect(llm).toHaveLength(llmCalls);
  const agents = spans.filter((s) => s.type === "agent");
  expect(agents.length).toBeGreaterThan(0);
  const byUuid = new Map(spans.map((s) => [s.uuid, s]));
  const under = (s: StoredSpan, type: string): boolean => {
    for (let p = s.parentUuid ? byUuid.get(s.parentUuid) : undefined; p; p = p.parentUuid ? byUuid.get(p.parentUuid) : undefined) if (p.type === type) return true;
    return false;
  };
  for (const s of llm) expect(under(s, "agent"), `${s.name} under an agent span`).toBe(true);
  expect(spans.filter((s) => s.type === "tool").map((s) => s.name)).toEqual(["lookup_order"]);
  return spans;
}

const ask = (marker: string) => `Where is order A-1001? use lookup_order (${marker})`;

describe.skipIf(onBun)("zero-code agent frameworks", () => {
  it.each([
    ["run()", "const r = await run(agent, q); console.log(r.finalOutput);"],
    ["run() streamed", "const r = await run(agent, q, { stream: true }); for await (const _ of r) {} await r.completed; console.log(r.finalOutput);"],
  ])("OpenAI Agents %s: the agent's model calls are llm spans under its agent span, the tool call a tool span", async (_name, body) => {
    const marker = `oa-agents-${body.includes("stream") ? "stream" : "run"}`;
    const src = `import { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI } from "@openai/agents"; import OpenAI from "openai"; import { z } from "zod";
setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 }));
setOpenAIAPI("chat_completions");
const lookup_order = tool({ name: "lookup_order", description: "Finds an order", parameters: z.object({ orderId: z.string() }), execute: async ({ orderId }) => "order " + orderId + " shipped" });
const agent = new Agent({ name: "Support", instructions: "Be brief", tools: [lookup_order], model: "gpt-4o-mini" });
const q = ${JSON.stringify(ask(marker))};
${body}`;
    const f = await runApp(src);
    expect(f.stdout.trim()).toBe(FAKE_REPLY);
    expectAgentRun(f, marker, 2);
  });

  it.each([
    ["run()", "console.log((await a.run(q)).data.result);"],
    ["runStream()", "const events = a.runStream(q); let result; for await (const e of events) if (e.data && typeof e.data === 'object' && 'result' in e.data) result = e.data.result; console.log(result);"],
  ])("LlamaIndex agent() %s: one agent span ended with the result, the model calls llm spans under it, the tool call a tool span", async (name, body) => {
    const marker = `li-agent-${name.replace(/\W/g, "")}`;
    const src = `import { tool } from "llamaindex"; import { OpenAI } from "@llamaindex/openai"; import { agent } from "@llamaindex/workflow";
const llm = new OpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
const lookup_order = tool({ name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] }, execute: ({ orderId }) => "order " + orderId + " shipped" });
const a = agent({ tools: [lookup_order], llm });
const q = ${JSON.stringify(ask(marker))};
${body}`;
    const f = await runApp(src);
    expect(f.stdout.trim()).toBe(FAKE_REPLY);
    const spans = expectAgentRun(f, marker, 2);
    expect(spans.find((s) => s.type === "agent")).toMatchObject({ status: "SUCCESS", output: FAKE_REPLY, integration: "LlamaIndex" });
  });

  it.each([
    ["LangGraph createReactAgent", 'import { createReactAgent } from "@langchain/langgraph/prebuilt";', "createReactAgent({ llm: model, tools: [lookup_order] })"],
    ["LangChain createAgent", 'import { createAgent } from "langchain";', "createAgent({ model, tools: [lookup_order] })"],
  ])("%s invoke and stream: the agent's model calls are llm spans under its agent span, the tool call a tool span", async (name, load, make) => {
    for (const mode of ["invoke", "stream"]) {
      const marker = `${name.split(" ")[1]}-${mode}`;
      const run =
        mode === "invoke"
          ? "const r = await a.invoke({ messages: [{ role: 'user', content: q }] }); console.log(r.messages.at(-1).content);"
          : "let last; for await (const chunk of await a.stream({ messages: [{ role: 'user', content: q }] }, { streamMode: 'values' })) last = chunk; console.log(last.messages.at(-1).content);";
      const src = `${load} import { ChatOpenAI } from "@langchain/openai"; import { tool } from "@langchain/core/tools"; import { z } from "zod";
const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", configuration: { baseURL: process.env.FAKE_OPENAI }, maxRetries: 0 });
const lookup_order = tool(async ({ orderId }) => "order " + orderId + " shipped", { name: "lookup_order", description: "Finds an order", schema: z.object({ orderId: z.string() }) });
const a = ${make};
const q = ${JSON.stringify(ask(marker))};
${run}`;
      const f = await runApp(src);
      expect(f.stdout.trim()).toBe(FAKE_REPLY);
      expectAgentRun(f, marker, 2);
    }
  });
});
