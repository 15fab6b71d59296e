import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runsHere, runtimeName } from "../../helpers/skips.js";
import { allSpans, fourSetups, frameworkRuns, llmProblems, modelCalls, outline, outputDifferences, traceProblems } from "./setups.js";

// Issue 43: Google ADK for TypeScript (@google/adk 2.0.0, test/realworld/frameworks/adk/package.json)
// running its official sample agent_with_tool.ts (adk/SOURCE.md) offline against the fake Gemini
// API, in four setups, each against a fresh emulator:
// - plain: no evaltrace (the stdout every other setup must print);
// - bridge: ADK's own telemetry setup, `maybeSetOtelProviders([{ spanProcessors: [new
//   EvaltraceSpanProcessor()] }])` (adk/telemetry.mjs, preloaded with --import);
// - zero-code: `--import evaltrace/auto`, ADK's telemetry off (no provider: its spans are no-ops);
// - both: evaltrace/auto, then adk/telemetry.mjs.
// Children load packages/evaltrace/dist: build first (npx tsup).

const FILE = "test/realworld/frameworks/adk.test.ts";
// The setups ride on Node's module hooks (zero-code) and run children with Node flags; Bun has neither.
const onNode = runsHere(!("Bun" in globalThis), FILE, `the setups need Node's module hooks and flags (here ${runtimeName})`);

const dir = fileURLToPath(new URL("./adk/", import.meta.url));
const program = `${dir}program.ts`;
const telemetry = `${dir}telemetry.mjs`;
const setups = fourSetups(telemetry);
const { run, why, runAll } = frameworkRuns("adk", program, setups);

beforeAll(async () => {
  if (onNode) await runAll();
}, 300_000);

describe.skipIf(!onNode)("Google ADK 2.0.0: its agent_with_tool sample, offline against the fake Gemini API", () => {
  it("the framework's @opentelemetry/api is the root's version (one API version in the process, as in an app's single install: the test folder's override)", () => {
    const version = (path: string) => (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
    const root = createRequire(import.meta.url).resolve("@opentelemetry/api").replace(/build\/.*$/, "package.json");
    expect(version(`${dir}node_modules/@opentelemetry/api/package.json`)).toBe(version(root));
  });

  it("plain: the sample runs offline: two generateContent requests, the first calling get_weather, the answer printed", () => {
    const r = run("plain");
    expect(r.code, why("plain")).toBe(0);
    expect(modelCalls(r).map((c) => c.toolCalls)).toEqual([["get_weather"], []]);
    expect(r.stdout).toContain("[weather_time_agent]: Orders ship in 2 days.");
  });

  it("bridge: one trace, invocation → agent weather_time_agent → llm call_llm ×2 (model, messages, output, tokens once) and tool get_weather with its arguments and result", () => {
    const r = run("bridge");
    expect(traceProblems(r), why("bridge")).toEqual([]);
    expect(outline(r)).toBe(["base invocation", "  agent weather_time_agent", "    llm call_llm", "      tool get_weather", "    llm call_llm"].join("\n"));
    const tool = allSpans(r).find((s) => s.type === "tool")!;
    expect(tool.input).toEqual({ city: expect.any(String) });
    expect(tool.output).toMatchObject({ status: "error", error_message: expect.stringContaining("is not available") });
    const [first, second] = allSpans(r).filter((s) => s.type === "llm");
    expect(first!.input).toContainEqual({ role: "user", content: "What is the weather in New York? Use get_weather." });
    expect(second!.output).toBe("Orders ship in 2 days.");
  });

  it("bridge: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("bridge"))).toEqual([]);
  });

  it("zero-code: each Gemini request is a trace of its own with one complete llm span; no agent or tool span (ADK's telemetry is off, and zero-code hooks only @google/genai)", () => {
    const r = run("zero-code");
    expect(llmProblems(r), why("zero-code")).toEqual([]);
    expect(r.traces.map((t) => t.spans.map((s) => `${s.type} ${s.name}`))).toEqual([["llm gemini.generateContent"], ["llm gemini.generateContent"]]);
  });

  it("zero-code: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("zero-code"))).toEqual([]);
  });

  it("both: one trace, ADK's call_llm spans base spans around ours (one llm span per request), the tool span under the first", () => {
    const r = run("both");
    expect(traceProblems(r), why("both")).toEqual([]);
    expect(outline(r)).toBe(
      ["base invocation", "  agent weather_time_agent", "    base call_llm", "      llm gemini.generateContent", "      tool get_weather", "    base call_llm", "      llm gemini.generateContent"].join("\n"),
    );
  });

  it("both: stdout as untraced, nothing new on stderr", () => {
    expect(outputDifferences(run("plain"), run("both"))).toEqual([]);
  });
});
