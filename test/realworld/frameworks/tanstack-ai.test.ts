import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runsHere } from "../../helpers/skips.js";
import { isModelCall } from "../tap.js";
import { expectPlainRunClean, expectTracedLikeDoneWhen, failedChecks, type FrameworkRun, llmSpans, preloadsFor, runFramework, toolSpans } from "./run-framework.js";

// Issue 43: TanStack AI (@tanstack/ai 0.58.0 with @tanstack/ai-openai 0.23.1, pinned in
// tanstack-ai/package.json and installed by install.mjs "tanstack-ai") run from its OpenTelemetry
// guide (tanstack-ai/program.ts, source in tanstack-ai/SOURCE.md): `chat()` with `otelMiddleware`
// (`captureContent: true`) and one tool, on the fake OpenAI server (the Responses API, through
// the openai SDK), untraced and in three setups.
// - Bridge: tanstack-ai/bridge.mjs, preloaded, registers a NodeTracerProvider with our span
//   processor (the guide's tracer comes from the global provider). One trace: the root `chat`
//   span (base: its summed tokens not counted again) with the question and the answer, one llm
//   span per model request with model, messages and tokens, the tool with its arguments and
//   result. TanStack records nothing of the model's tool call on the first request's span (its
//   `finish_reasons` say `tool_calls`, no output message or `gen_ai.choice`): its output and
//   toolsCalled are read from the `execute_tool` span under it (semconv/child-tools.ts). The
//   second request's input has no assistant message between the question and the tool's result
//   (TanStack's captured messages leave it out).
// - Zero-code: TanStack's telemetry is off and evaltrace/auto records the openai SDK's calls:
//   each model request is a trace of its own (TanStack AI is not instrumented by zero-code, so
//   nothing groups them), with no tool span.
// - Both: TanStack's trace as in the bridge setup, and nothing else. TanStack's middleware starts
//   its iteration span with an explicit parent and never makes it the active context around the
//   provider call (middlewares/otel.js: `tracer.startSpan(name, options, parentCtx)`), so the
//   openai SDK's call, which zero-code records, has no parent: a trace of its own, which the
//   model-call fold (src/traces/model-call-fold.ts) matches to the iteration span of the same
//   request (model and token counts) and lets go, so each request is one llm span.

const FILE = "test/realworld/frameworks/tanstack-ai.test.ts";
const dir = fileURLToPath(new URL("./tanstack-ai/", import.meta.url));
const program = `${dir}program.ts`;
const bridge = pathToFileURL(`${dir}bridge.mjs`).href;
const onNode = runsHere(!("Bun" in globalThis), FILE, "the setups preload with Node's --import, which Bun does not have");

const runs = new Map<string, FrameworkRun>();
const outline = (run: FrameworkRun) =>
  run.traces.map((t) => {
    const depth = (s: (typeof t.spans)[number]): number => (s.parentUuid ? 1 + depth(t.spans.find((p) => p.uuid === s.parentUuid)!) : 0);
    return t.spans.map((s) => `${"  ".repeat(depth(s))}${s.type} ${s.name}`).sort();
  });

describe.skipIf(!onNode)("TanStack AI 0.58 otelMiddleware, its OpenTelemetry guide with a tool, offline against the fake OpenAI server", () => {
  beforeAll(async () => {
    const { install } = (await import(new URL("./install.mjs", import.meta.url).href)) as { install: (name: string) => void };
    install("tanstack-ai");
    for (const setup of ["plain", "bridge", "zero-code", "both"] as const) runs.set(setup, await runFramework(program, preloadsFor(setup, bridge)));
  }, 300_000);

  it("untraced, chat() calls get_weather and prints the answer (two model requests)", () => {
    const plain = runs.get("plain")!;
    expectPlainRunClean(plain);
    expect(plain.stdout).toBe("Orders ship in 2 days.\n");
    expect(plain.calls.filter(isModelCall).map((c) => [c.route, c.toolCalls])).toEqual([
      ["POST /responses", ["get_weather"]],
      ["POST /responses", []],
    ]);
  });

  it("bridge: one trace, chat → an llm span per request (model, messages, output, tokens once) → get_weather with its arguments and result; the first request's tool call read from its tool span; stdout as untraced", () => {
    const [plain, run] = [runs.get("plain")!, runs.get("bridge")!];
    expectTracedLikeDoneWhen(plain, run, "tanstack-ai/bridge");
    expect(outline(run)).toEqual([["    tool get_weather", "  llm chat gpt-5.5 #0", "  llm chat gpt-5.5 #1", "base chat gpt-5.5"]]);
    expect(run.traces[0]).toMatchObject({ name: "chat gpt-5.5", input: JSON.stringify([{ role: "user", content: "hi" }]), output: "Orders ship in 2 days." });
    expect(llmSpans(run).map((s) => [s.model, s.provider, s.input, s.output, s.inputTokenCount, s.outputTokenCount])).toEqual([
      ["gpt-5.5", "OpenAI", [{ role: "user", content: "hi" }], 'get_weather({"location":"Orders ship in 2 days."})', 20, 7],
      ["gpt-5.5", "OpenAI", [{ role: "user", content: "hi" }, { role: "tool", content: '{"temperature":72,"conditions":"sunny"}' }], "Orders ship in 2 days.", 9, 4],
    ]);
    expect(llmSpans(run)[0]!.toolsCalled).toEqual([{ name: "get_weather", inputParameters: { location: "Orders ship in 2 days." } }]);
    expect(toolSpans(run).map((s) => [s.name, s.input, s.output])).toEqual([["get_weather", { location: "Orders ship in 2 days." }, { temperature: 72, conditions: "sunny" }]]);
  });

  it("zero-code: each model request a trace of its own (model, messages, output, tokens once), no tool span; stdout as untraced", () => {
    const [plain, run] = [runs.get("plain")!, runs.get("zero-code")!];
    expect(failedChecks(plain, run, "tanstack-ai/zero-code")).toEqual({});
    expect(outline(run).sort()).toEqual([["llm openai.responses"], ["llm openai.responses"]]);
    expect(toolSpans(run)).toEqual([]);
  });

  it("both: one trace as in the bridge setup, each model request one llm span (zero-code's record of it folded into TanStack's iteration span: TanStack never makes that span the active context); stdout as untraced", () => {
    const [plain, run] = [runs.get("plain")!, runs.get("both")!];
    expectTracedLikeDoneWhen(plain, run, "tanstack-ai/both");
    expect(outline(run)).toEqual([["    tool get_weather", "  llm chat gpt-5.5 #0", "  llm chat gpt-5.5 #1", "base chat gpt-5.5"]]);
    expect(llmSpans(run).map((s) => `${s.inputTokenCount}/${s.outputTokenCount}`)).toEqual(["20/7", "9/4"]);
  });
});
