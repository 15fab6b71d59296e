import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runsHere } from "../../helpers/skips.js";
import { isModelCall } from "../tap.js";
import { expectTracedLikeDoneWhen, type FrameworkRun, llmSpans, normalized, preloadsFor, runFramework, toolSpans } from "./run-framework.js";

// Issue 43: VoltAgent (@voltagent/core 2.10.0 with ai 6.0.333, pinned in voltagent/package.json
// and installed by install.mjs "voltagent") run from its own tools guide (voltagent/program.ts,
// source in voltagent/SOURCE.md): an agent with one tool, `generateText` on the fake OpenAI
// server (the Responses API, through @ai-sdk/openai), untraced and in three setups.
// - Bridge: voltagent/bridge.mjs, preloaded, makes a VoltAgentObservability with our span
//   processor every agent's observability. VoltAgent's telemetry has one llm span per AI SDK call
//   (`llm:generateText`, all its steps) and records on it the LAST step's usage and no reply:
//   so one llm span for the two model requests, its tokens those of the second, no output. The
//   agent, its input and answer, the tool with its arguments and result are all there.
// - Zero-code: evaltrace/auto's AI SDK hook records the call (VoltAgent's telemetry goes to its
//   own provider alone): one llm span per request, the tool, under the AI SDK call's span.
// - Both: zero-code's llm spans are the model requests and VoltAgent's llm span, around them, a
//   base span: one llm span per request, tokens once, under VoltAgent's agent. Each tool call is
//   recorded twice (VoltAgent's span, which hangs from the agent's, and the AI SDK's, active
//   around the tool's execute when VoltAgent starts its own): VoltAgent's is kept, the AI SDK's
//   twin left out (src/bridge/twin-tools.ts).
// The program never ends on its own, untraced too: VoltAgent's default observability store
// (InMemoryStorageAdapter) keeps a 60-second cleanup interval referenced. Each run is stopped
// with SIGTERM once it has printed its answer, as a server is: evaltrace delivers on SIGTERM and
// re-raises it, so every run ends by SIGTERM. Offline, VoltAgent warns on stderr that models.dev
// (its model registry) is unreachable, and the AI SDK that the system message is in `messages`:
// alike in every run.

const FILE = "test/realworld/frameworks/voltagent.test.ts";
const dir = fileURLToPath(new URL("./voltagent/", import.meta.url));
const program = `${dir}program.ts`;
const bridge = pathToFileURL(`${dir}bridge.mjs`).href;
const answer = "Orders ship in 2 days.\n";
const onNode = runsHere(!("Bun" in globalThis), FILE, "the setups preload with Node's --import, which Bun does not have");

const runs = new Map<string, FrameworkRun>();
const outline = (run: FrameworkRun) => {
  const spans = run.traces[0]?.spans ?? [];
  const depth = (s: (typeof spans)[number]): number => (s.parentUuid ? 1 + depth(spans.find((p) => p.uuid === s.parentUuid)!) : 0);
  return spans.map((s) => `${"  ".repeat(depth(s))}${s.type} ${s.name}`).sort();
};

describe.skipIf(!onNode)("VoltAgent 2.10, its tools guide, offline against the fake OpenAI server", () => {
  beforeAll(async () => {
    const { install } = (await import(new URL("./install.mjs", import.meta.url).href)) as { install: (name: string) => void };
    install("voltagent");
    for (const setup of ["plain", "bridge", "zero-code", "both"] as const) runs.set(setup, await runFramework(program, preloadsFor(setup, bridge), { stopOnceItPrints: answer }));
  }, 300_000);

  it("untraced, the agent calls get_weather and answers (two model requests); stopped by SIGTERM once it has", () => {
    const plain = runs.get("plain")!;
    expect({ code: plain.code, signal: plain.signal, stdout: plain.stdout }).toEqual({ code: null, signal: "SIGTERM", stdout: `Fetching weather for Orders ship in 2 days....\n${answer}` });
    expect(plain.calls.filter(isModelCall).map((c) => [c.route, c.toolCalls])).toEqual([
      ["POST /responses", ["get_weather"]],
      ["POST /responses", []],
    ]);
  });

  it("bridge: one trace, agent → llm, get_weather with its arguments and result; VoltAgent's one llm span for the AI SDK call has the last step's tokens and no reply; stdout as untraced", () => {
    const [plain, run] = [runs.get("plain")!, runs.get("bridge")!];
    expect({ code: run.code, signal: run.signal, stdout: normalized(run) }).toEqual({ code: plain.code, signal: plain.signal, stdout: normalized(plain) });
    expect(run.traces).toHaveLength(1);
    expect(run.traces[0]).toMatchObject({ name: "WeatherAgent", input: "What's the weather in Paris?", output: "Orders ship in 2 days." });
    expect(outline(run)).toEqual(["  llm llm:generateText", "  tool get_weather", "agent WeatherAgent"]);
    const [served1, served2] = run.calls.filter(isModelCall);
    const [llm] = llmSpans(run);
    expect(llm).toMatchObject({
      model: "gpt-4o-mini",
      input: [
        { role: "system", content: "An agent that can fetch weather information." },
        { role: "user", content: "What's the weather in Paris?" },
      ],
      inputTokenCount: served2!.inputTokens,
      outputTokenCount: served2!.outputTokens,
    });
    expect(llm!.output).toBeUndefined();
    expect(served1!.inputTokens).not.toBe(llm!.inputTokenCount);
    expect(toolSpans(run).map((s) => [s.name, s.input, s.output])).toEqual([["get_weather", { location: "Orders ship in 2 days." }, { temperature: "22°C", condition: "Sunny" }]]);
  });

  it("zero-code: one trace, the AI SDK call → an llm span per request (model, messages, output, tokens once), get_weather with its arguments and result; stdout as untraced", () => {
    const run = runs.get("zero-code")!;
    expectTracedLikeDoneWhen(runs.get("plain")!, run, "voltagent/zero-code");
    expect(outline(run)).toEqual(["  llm ai.generateText.doGenerate", "  llm ai.generateText.doGenerate", "  tool get_weather", "base ai.generateText"]);
  });

  it("both: one trace, agent → VoltAgent's AI SDK call (base) → an llm span per request, tokens once; each tool call once, VoltAgent's span (the AI SDK's twin left out); stdout as untraced", () => {
    const run = runs.get("both")!;
    expectTracedLikeDoneWhen(runs.get("plain")!, run, "voltagent/both");
    expect(run.traces[0]).toMatchObject({ name: "WeatherAgent", input: "What's the weather in Paris?", output: "Orders ship in 2 days." });
    expect(outline(run)).toEqual([
      "      llm ai.generateText.doGenerate",
      "      llm ai.generateText.doGenerate",
      "    base ai.generateText",
      "  base llm:generateText",
      "  tool get_weather",
      "agent WeatherAgent",
    ]);
    expect(llmSpans(run).map((s) => s.output)).toEqual(['get_weather({"location":"Orders ship in 2 days."})', "Orders ship in 2 days."]);
    expect(toolSpans(run).map((s) => [s.name, s.input, s.output])).toEqual([["get_weather", { location: "Orders ship in 2 days." }, { temperature: "22°C", condition: "Sunny" }]]);
  });
});
