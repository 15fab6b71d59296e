import { describe, expect, it } from "vitest";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { runsHere } from "../helpers/skips.js";
import { zeroCodeRig } from "../helpers/zero-code-rig.js";

// Issue 42: model calls that go through an AI SDK provider (@ai-sdk/openai) but not through the
// `ai` functions zero-code turns telemetry on for — an agent framework's own loop calling
// `model.doGenerate`/`doStream` (Mastra's) — were recorded by nobody. The net under
// @ai-sdk/provider-utils records each as one llm span; a call of the AI SDK's own functions stays
// theirs (one llm span through its telemetry, none where the app turned that off). Children load dist/: build first with `npx tsup`.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/ai-sdk-provider-net.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

const rig = zeroCodeRig();
const { runApp, tracesOf } = rig;

const load = (format: "esm" | "cjs") =>
  format === "esm"
    ? 'import * as ai from "ai"; import { createOpenAI } from "@ai-sdk/openai"; import { shutdown, stats } from "evaltrace";'
    : 'const ai = require("ai"); const { createOpenAI } = require("@ai-sdk/openai"); const { shutdown, stats } = require("evaltrace");';

const app = (format: "esm" | "cjs", body: string) => `${load(format)}
const provider = createOpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI });
const prompt = (text) => [{ role: "user", content: [{ type: "text", text }] }];
${format === "cjs" ? "(async () => {" : ""}
${body}
await shutdown();
${format === "cjs" ? "})();" : ""}`;

describe.skipIf(onBun)("zero-code: the net under the AI SDK's providers", () => {
  it.each(["esm", "cjs"] as const)("%s: model.doGenerate and model.doStream called directly (an agent framework's own loop): one llm span each, from the request and the reply", async (format) => {
    const body = `const chat = provider.chat("gpt-4o-mini");
const g = await chat.doGenerate({ prompt: prompt("net-generate-${format}") });
const s = await chat.doStream({ prompt: prompt("net-stream-${format}") });
let text = "";
for await (const part of s.stream) if (part.type === "text-delta") text += part.delta ?? part.textDelta ?? "";
console.log(JSON.stringify([g.content?.[0]?.text ?? g.text, text, stats().netSpans]));`;
    const f = await runApp(format, app(format, body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(JSON.parse(f.stdout.trim())).toEqual([FAKE_REPLY, FAKE_REPLY, 2]);
    for (const marker of [`net-generate-${format}`, `net-stream-${format}`]) {
      const traces = tracesOf(marker);
      expect(traces, marker).toHaveLength(1);
      const llm = traces[0]!.filter((s) => s.type === "llm");
      expect(llm).toHaveLength(1);
      expect(llm[0]).toMatchObject({ status: "SUCCESS", output: FAKE_REPLY, model: expect.stringMatching(/^gpt-4o-mini/), metadata: expect.objectContaining({ "evaltrace.recordedBy": "net" }) });
      expect(llm[0]!.inputTokenCount).toBeGreaterThan(0);
    }
  });

  it("the AI SDK's own functions are left to its telemetry: generateText is one llm span (the AI SDK's), not two; with telemetry turned off by the app, nothing", async () => {
    const body = `await ai.generateText({ model: provider.chat("gpt-4o-mini"), prompt: "net-telemetry-on" });
await ai.generateText({ model: provider.chat("gpt-4o-mini"), prompt: "net-telemetry-off", experimental_telemetry: { isEnabled: false } });
console.log(stats().netSpans);`;
    const f = await runApp("esm", app("esm", body));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout.trim()).toBe("0");
    expect(tracesOf("net-telemetry-off")).toHaveLength(0);
    const on = tracesOf("net-telemetry-on");
    expect(on).toHaveLength(1);
    const llm = on[0]!.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(1);
    expect((llm[0]!.metadata as Record<string, unknown> | undefined)?.["evaltrace.recordedBy"]).toBeUndefined();
  });
});
