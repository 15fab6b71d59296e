import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runsHere, runtimeName } from "../../helpers/skips.js";
import { allSpans, frameworkRuns, llmProblems, modelCalls, outlines, outputDifferences, type Setup, traceProblems } from "./setups.js";

// Issue 43: AWS Strands Agents for TypeScript (@strands-agents/sdk 1.19.0, Node 22+,
// test/realworld/frameworks/strands/package.json) running its official first-agent example
// (strands/SOURCE.md) offline against the fake Bedrock (ConverseStream), each setup against a
// fresh emulator:
// - plain: no evaltrace (the stdout every other setup must print);
// - bridge: Strands' own telemetry setup, `setupTracer({ provider })` with a NodeTracerProvider
//   that carries `new EvaltraceSpanProcessor()` (strands/telemetry.mjs, preloaded with --import),
//   in each of Strands' three ways of recording content: its default (one span event per
//   message), `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`
//   (`gen_ai.client.inference.operation.details` span events) and `gen_ai_span_attributes_only`;
// - zero-code: `--import evaltrace/auto`, Strands' telemetry off (no provider: its spans are no-ops);
// - both: evaltrace/auto, then strands/telemetry.mjs: the bridge's traces; zero-code's span of
//   each request (a trace of its own) folded into Strands' chat span (src/traces/model-call-fold.ts).
// The example runs four agents one after the other: one trace per agent run (Strands' own
// telemetry docs: "each creates its own trace"). Children load packages/evaltrace/dist: build
// first (npx tsup). Node 22+ (the SDK's engines): npm run test:runtimes runs it on Node 22 and 24.

const FILE = "test/realworld/frameworks/strands.test.ts";
const major = Number(process.versions.node.split(".")[0]);
const runs22 = runsHere(!("Bun" in globalThis) && major >= 22, FILE, `@strands-agents/sdk needs Node 22+ and the setups Node's module hooks (here ${runtimeName}); npm run test:runtimes runs it on Node 22 and 24`);

const dir = fileURLToPath(new URL("./strands/", import.meta.url));
const program = `${dir}program.ts`;
const telemetry = `${dir}telemetry.mjs`;
const optIn = (value: string) => ({ OTEL_SEMCONV_STABILITY_OPT_IN: value });
const setups: Record<string, Setup> = {
  plain: { flags: [] },
  bridge: { flags: ["--import", telemetry] },
  "bridge, gen_ai_latest_experimental": { flags: ["--import", telemetry], env: optIn("gen_ai_latest_experimental") },
  "bridge, gen_ai_span_attributes_only": { flags: ["--import", telemetry], env: optIn("gen_ai_span_attributes_only") },
  "zero-code": { flags: ["--import", "evaltrace/auto"] },
  both: { flags: ["--import", "evaltrace/auto", "--import", telemetry] },
};
const { run, why, runAll } = frameworkRuns("strands", program, setups);

/** The example's four agent runs as trees: two answer "Hello!" with one model call, two call get_weather then answer. */
const agentRun = (tool: boolean) =>
  ["agent Strands Agent", "  base execute_agent_loop_cycle", "    llm chat", ...(tool ? ["    tool get_weather", "  base execute_agent_loop_cycle", "    llm chat"] : [])].join("\n");
const fourAgentRuns = [agentRun(true), agentRun(true), agentRun(false), agentRun(false)].sort();

beforeAll(async () => {
  if (runs22) await runAll();
}, 300_000);

describe.skipIf(!runs22)("AWS Strands Agents 1.19.0: its first-agent example, offline against the fake Bedrock", () => {
  it("plain: the example runs offline: six ConverseStream requests, two calling get_weather", () => {
    const r = run("plain");
    expect(r.code, why("plain")).toBe(0);
    expect(modelCalls(r).map((c) => c.toolCalls.join())).toEqual(["", "", "get_weather", "", "get_weather", ""]);
    expect(r.stdout).toContain("Streaming complete.");
  });

  for (const name of ["bridge", "bridge, gen_ai_latest_experimental", "bridge, gen_ai_span_attributes_only"]) {
    it(`${name}: one trace per agent run, agent → loop cycle → llm chat and tool get_weather; llm spans with model, system prompt and messages, output, tokens once; tool spans with arguments and result`, () => {
      const r = run(name);
      expect(traceProblems(r, 4), why(name)).toEqual([]);
      expect(outlines(r)).toEqual(fourAgentRuns);
      for (const tool of allSpans(r).filter((s) => s.type === "tool")) {
        expect(tool.input).toEqual({ location: expect.any(String) });
        expect(tool.output).toBe(`The weather in ${(tool.input as { location: string }).location} is 72°F and sunny.`);
      }
      for (const agent of allSpans(r).filter((s) => s.type === "agent")) expect(typeof agent.output, why(name)).toBe("string");
    });

    it(`${name}: stdout as untraced, nothing new on stderr`, () => {
      expect(outputDifferences(run("plain"), run(name))).toEqual([]);
    });
  }

  it("zero-code: each ConverseStream request is a trace of its own with one complete llm span; no agent or tool span (Strands' telemetry is off, and zero-code hooks only the AWS SDK's Bedrock client)", () => {
    const r = run("zero-code");
    expect(llmProblems(r), why("zero-code")).toEqual([]);
    expect(outlines(r)).toEqual(Array(6).fill("llm bedrock.converse_stream"));
  });

  it("zero-code: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("zero-code"))).toEqual([]);
  });

  it("both: Strands' four agent traces as in bridge and nothing else, one llm span per model request: Strands runs the model outside its chat span's context, so zero-code's span of each request is a trace of its own, folded into the chat span of the same request", () => {
    const r = run("both");
    expect(traceProblems(r, 4), why("both")).toEqual([]);
    expect(outlines(r), why("both")).toEqual(fourAgentRuns);
    expect(allSpans(r).filter((s) => s.type === "llm")).toHaveLength(modelCalls(r).length);
  });

  it("both: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("both"))).toEqual([]);
  });
});
