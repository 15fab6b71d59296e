import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runsHere, runtimeName } from "../../helpers/skips.js";
import { allSpans, type FakeUrls, fourSetups, frameworkRuns, llmProblems, modelCalls, outline, outlines, outputDifferences, traceProblems } from "./setups.js";

// Issue 43: the BeeAI Framework for TypeScript (beeai-framework 0.1.13: the newest release
// @arizeai/openinference-instrumentation-beeai 1.5.30 instruments, ">=0.1.9 <0.1.14"; on a later
// one it only logs a diag warning and records nothing) running that instrumentation's official
// tool-calling agent example (beeai/program.ts, beeai/SOURCE.md) offline against the fake OpenAI,
// each setup against a fresh emulator:
// - plain: no evaltrace (the stdout every other setup must print);
// - bridge: the example's own instrumentation steps, a NodeTracerProvider with
//   `new EvaltraceSpanProcessor()`, `new BeeAIInstrumentation().manuallyInstrument(beeaiFramework)`,
//   `provider.register()` (beeai/telemetry.mjs, preloaded with --import);
// - zero-code: `--import evaltrace/auto` (BeeAI's OpenAI adapter calls the model through the AI
//   SDK 4 it depends on, whose calls zero-code records);
// - both: evaltrace/auto, then beeai/telemetry.mjs: the bridge's trace; zero-code's record of the
//   same request (a trace of its own) folded into it (src/traces/model-call-fold.ts).
// The fake model answers the one request with both tool calls the prompt names (Calculator and
// the agent's final_answer): one llm span, two tool spans. The calculator fails on the fake's
// sample expression (its argument is the fake's sample string): its span is ERRORED with the
// tool's error, which is what BeeAI records. Children load packages/evaltrace/dist: build first.

const FILE = "test/realworld/frameworks/beeai.test.ts";
const onNode = runsHere(!("Bun" in globalThis), FILE, `the setups need Node's module hooks and flags (here ${runtimeName})`);

const dir = fileURLToPath(new URL("./beeai/", import.meta.url));
const program = `${dir}program.ts`;
const telemetry = `${dir}telemetry.mjs`;
// BeeAI's OpenAI adapter reads its base URL from OPENAI_API_ENDPOINT (adapters/openai/backend/client).
const setups = fourSetups(telemetry, (urls: FakeUrls) => ({ OPENAI_API_ENDPOINT: urls.openai }));
const { run, why, runAll } = frameworkRuns("beeai", program, setups);
const agentTree = ["agent beeai-framework-main", "  llm backend.openai.chat", "  tool calculator", "  tool finalAnswer"].join("\n");
const zeroCodeTree = ["base ai.generateText", "  llm ai.generateText.doGenerate"].join("\n");

beforeAll(async () => {
  if (onNode) await runAll();
}, 300_000);

describe.skipIf(!onNode)("BeeAI 0.1.13 with OpenInference's BeeAI instrumentation 1.5.30: its tool-calling agent example, offline against the fake OpenAI", () => {
  it("plain: the example runs offline: one chat request answered with the Calculator and final_answer calls, the answer printed", () => {
    const r = run("plain");
    expect(r.code, why("plain")).toBe(0);
    expect(modelCalls(r).map((c) => c.toolCalls)).toEqual([["Calculator", "final_answer"]]);
    expect(r.stdout).toContain("Orders ship in 2 days.");
  });

  it("bridge: one trace, agent beeai-framework-main → one llm span (model, messages, its tool calls as output and toolsCalled, tokens once) and one tool span per run with its arguments and result (the calculator's error)", () => {
    const r = run("bridge");
    expect(traceProblems(r), why("bridge")).toEqual([]);
    expect(outline(r)).toBe(agentTree);
    const llm = allSpans(r).find((s) => s.type === "llm")!;
    expect(llm.output).toBe('Calculator({"expression":"Orders ship in 2 days."})\nfinal_answer({"response":"Orders ship in 2 days."})');
    const tool = (name: string) => allSpans(r).find((s) => s.type === "tool" && s.name === name)!;
    expect(tool("calculator")).toMatchObject({ status: "ERRORED", input: { expression: "Orders ship in 2 days." }, error: expect.stringContaining('Tool "Calculator" has occurred an error!') });
    expect(tool("finalAnswer")).toMatchObject({ status: "SUCCESS", input: { response: "Orders ship in 2 days." }, output: '{"result":"Message has been sent"}' });
    const agent = allSpans(r).find((s) => s.type === "agent")!;
    expect(agent).toMatchObject({ input: "How are you? Use Calculator, then final_answer.", output: "Orders ship in 2 days." });
  });

  it("bridge: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("bridge"))).toEqual([]);
  });

  it("zero-code: one trace of the AI SDK's generateText with one complete llm span; no agent or tool span (the instrumentation is not registered, and zero-code does not know BeeAI)", () => {
    const r = run("zero-code");
    expect(llmProblems(r), why("zero-code")).toEqual([]);
    expect(outlines(r)).toEqual([zeroCodeTree]);
  });

  it("zero-code: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("zero-code"))).toEqual([]);
  });

  it("both: the bridge's trace alone, one llm span for the one request: the AI SDK trace zero-code recorded of it (OpenInference builds BeeAI's spans after the run, outside its context, so nothing ties the two) folded into BeeAI's llm span", () => {
    const r = run("both");
    expect(outlines(r), why("both")).toEqual([agentTree]);
    expect(allSpans(r).filter((s) => s.type === "llm")).toHaveLength(modelCalls(r).length);
    expect(traceProblems(r), why("both")).toEqual([]);
  });

  it("both: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("both"))).toEqual([]);
  });
});
