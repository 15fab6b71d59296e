import { describe, expect, it } from "vitest";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { runChild } from "../helpers/child.js";
import { runsHere } from "../helpers/skips.js";
import { zeroCodeRig } from "../helpers/zero-code-rig.js";

// AI SDK 6's agents (`ToolLoopAgent`, `Experimental_Agent`) call the SDK's generateText and
// streamText from inside the package, not through its exports: zero-code (children load dist/:
// build first with `npx tsup`) must still record their model calls, under an agent span.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/ai-sdk-agents.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

const rig = zeroCodeRig();
const { runApp, tracesOf } = rig;

const load = (format: "esm" | "cjs") =>
  format === "esm"
    ? 'import * as ai from "ai"; import { createOpenAI } from "@ai-sdk/openai"; import { z } from "zod"; import { shutdown } from "evaltrace";'
    : 'const ai = require("ai"); const { createOpenAI } = require("@ai-sdk/openai"); const { z } = require("zod"); const { shutdown } = require("evaltrace");';

const agentApp = (format: "esm" | "cjs", marker: string, body: string) => `${load(format)}
const model = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI }).chat("gpt-4o-mini");
const lookup_order = ai.tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }) => ({ orderId, status: "shipped" }) });
const agent = new ai.ToolLoopAgent({ id: "support", model, instructions: "You help with orders.", tools: { lookup_order } });
const marker = ${JSON.stringify(marker)};
${body}
await shutdown();`;

/** The one trace of a run: an agent span at its root, with its llm and tool spans under it. */
function agentTrace(marker: string): StoredSpan[] {
  const traces = tracesOf(marker);
  expect(traces).toHaveLength(1);
  const spans = traces[0]!;
  const root = spans.filter((s) => !s.parentUuid);
  expect(root.map((s) => `${s.type}:${s.name}`)).toEqual(["agent:support"]);
  return spans;
}

describe.skipIf(onBun)("zero-code AI SDK 6 agents", () => {
  it.each(["esm", "cjs"] as const)("%s: ToolLoopAgent.generate with a tool: one agent span, an llm span per model call (the tool call, then the answer), the tool span, all SUCCESS", async (format) => {
    const marker = `agent-generate-${format}`;
    const f = await runApp(format, agentApp(format, marker, "const r = await agent.generate({ prompt: 'Where is order A-1001? (' + marker + ') use lookup_order' }); console.log(r.text, r.steps.length);"));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim()).toBe(`${FAKE_REPLY} 2`);
    const spans = agentTrace(marker);
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(2);
    expect(spans.filter((s) => s.type === "tool").map((s) => s.name)).toEqual(["lookup_order"]);
    expect(spans.every((s) => s.status === "SUCCESS")).toBe(true);
    const root = spans.find((s) => !s.parentUuid)!;
    expect(root.output).toBe(FAKE_REPLY);
    expect(llm[1]!.output).toBe(FAKE_REPLY);
  });

  it("ToolLoopAgent.stream with a tool, read to its end: one agent span, two llm spans, the tool span, SUCCESS with the whole reply", async () => {
    const marker = "agent-stream";
    const f = await runApp("esm", agentApp("esm", marker, "const r = await agent.stream({ prompt: 'Where is order A-1001? (' + marker + ') use lookup_order' }); let text = ''; for await (const t of r.textStream) text += t; console.log(text);"));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim()).toBe(FAKE_REPLY);
    const spans = agentTrace(marker);
    expect(spans.filter((s) => s.type === "llm")).toHaveLength(2);
    expect(spans.filter((s) => s.type === "tool").map((s) => s.name)).toEqual(["lookup_order"]);
    expect(spans.every((s) => s.status === "SUCCESS")).toBe(true);
    expect(spans.find((s) => !s.parentUuid)!.output).toBe(FAKE_REPLY);
  });

  it("ToolLoopAgent.stream aborted by its AbortController: the agent span and the model call are ERRORED (aborted) with the text streamed before it, nothing left open", async () => {
    const marker = "agent-abort";
    const body = `const slow = new ai.ToolLoopAgent({ id: "support", model, headers: { "x-fake-stream-delay-ms": "40" } });
const abort = new AbortController();
const r = await slow.stream({ prompt: \`When? (\${marker})\`, abortSignal: abort.signal });
let pieces = 0;
try { for await (const _ of r.textStream) if (++pieces === 2) abort.abort(); } catch {}
console.log(pieces);`;
    const f = await runApp("esm", agentApp("esm", marker, body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = agentTrace(marker);
    const root = spans.find((s) => !s.parentUuid)!;
    expect(root).toMatchObject({ status: "ERRORED", error: expect.stringContaining("aborted") });
    expect(root.output).toMatch(/^Orders ship/);
    expect(root.output).not.toBe(FAKE_REPLY);
    const llm = spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(1);
    expect(llm[0]).toMatchObject({ status: "ERRORED" });
    expect(JSON.stringify(spans)).not.toContain("evaltrace.unfinished");
  });

  it("ToolLoopAgent.generate and .stream with structured output (Output.object): an llm span each, under the agent span, the object as the output", async () => {
    const marker = "agent-output";
    const body = `const structured = new ai.ToolLoopAgent({ id: "support", model, output: ai.Output.object({ schema: z.object({ answer: z.string() }) }) });
const g = await structured.generate({ prompt: \`Answer (\${marker}) generate\` });
const s = await structured.stream({ prompt: \`Answer (\${marker}) stream\` });
for await (const _ of s.partialOutputStream) {}
console.log(typeof g.output.answer, typeof (await s.output).answer);`;
    const f = await runApp("esm", agentApp("esm", marker, body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim()).toBe("string string");
    const traces = tracesOf(marker);
    expect(traces).toHaveLength(2);
    for (const spans of traces) {
      expect(spans.filter((s) => !s.parentUuid).map((s) => `${s.type}:${s.name}`)).toEqual(["agent:support"]);
      const llm = spans.filter((s) => s.type === "llm");
      expect(llm).toHaveLength(1);
      expect(llm[0]!.output).toContain("answer");
      expect(spans.every((s) => s.status === "SUCCESS")).toBe(true);
    }
  });

  it("instrument() (evaltrace/instrument) records a ToolLoopAgent's model calls like zero-code", async () => {
    const marker = "agent-instrument";
    const src = `import { instrument } from "evaltrace/instrument";
instrument();
const ai = await import("ai"); const { createOpenAI } = await import("@ai-sdk/openai"); const { z } = await import("zod"); const { shutdown } = await import("evaltrace");
const model = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI }).chat("gpt-4o-mini");
const agent = new ai.ToolLoopAgent({ id: "support", model });
const r = await agent.generate({ prompt: "Hello (${marker})" });
console.log(r.text);
await shutdown();`;
    const f = await runChild("esm", src, rig.env()).finished;
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    const spans = agentTrace(marker);
    expect(spans.filter((s) => s.type === "llm")).toHaveLength(1);
  });

  it("an agent whose telemetry the app turned off (isEnabled: false) records nothing, and its reply is unchanged", async () => {
    const marker = "agent-off";
    const body = "const off = new ai.ToolLoopAgent({ id: 'support', model, experimental_telemetry: { isEnabled: false } }); console.log((await off.generate({ prompt: 'Hi (' + marker + ')' })).text);";
    const f = await runApp("esm", agentApp("esm", marker, body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.stdout.trim()).toBe(FAKE_REPLY);
    expect(tracesOf(marker)).toHaveLength(0);
  });
});
