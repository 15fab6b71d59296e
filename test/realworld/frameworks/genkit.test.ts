import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runsHere } from "../../helpers/skips.js";
import { expectPlainRunClean, expectTracedLikeDoneWhen, type FrameworkRun, llmSpans, normalized, preloadsFor, runFramework, toolSpans } from "./run-framework.js";

// Issue 43: Firebase Genkit (genkit 1.42.0, @genkit-ai/google-genai 1.42.0, pinned in
// genkit/package.json and installed by install.mjs "genkit") run from its own tool-calling guide
// (genkit/program.ts, source in genkit/SOURCE.md) against the fake Gemini server, untraced and in
// three setups. Bridge: genkit/bridge.mjs, preloaded, calls Genkit's own `enableTelemetry` with
// our span processor (Genkit builds an OpenTelemetry NodeSDK 1.x with it). Zero-code: the
// googleAI plugin calls the Gemini API with its own fetch, not through @google/genai, so
// evaltrace/auto has no model SDK to see and Genkit's telemetry is off: nothing is recorded, and
// the app runs as it did. Both: what the bridge records, once.

const FILE = "test/realworld/frameworks/genkit.test.ts";
const dir = fileURLToPath(new URL("./genkit/", import.meta.url));
const program = `${dir}program.ts`;
const bridge = pathToFileURL(`${dir}bridge.mjs`).href;
const onNode = runsHere(!("Bun" in globalThis), FILE, "the setups preload with Node's --import, which Bun does not have");

const runs = new Map<string, FrameworkRun>();

describe.skipIf(!onNode)("Firebase Genkit 1.42, its tool-calling guide, offline against the fake Gemini server", () => {
  beforeAll(async () => {
    const { install } = (await import(new URL("./install.mjs", import.meta.url).href)) as { install: (name: string) => void };
    install("genkit");
    for (const setup of ["plain", "bridge", "zero-code", "both"] as const) runs.set(setup, await runFramework(program, preloadsFor(setup, bridge)));
  }, 300_000);

  it("untraced, the program asks the model, runs getWeather and prints the answer (two model requests)", () => {
    const plain = runs.get("plain")!;
    expectPlainRunClean(plain);
    expect(plain.stdout).toBe("Orders ship in 2 days.\n");
    expect(plain.calls.map((c) => c.toolCalls)).toEqual([["getWeather"], []]);
  });

  for (const setup of ["bridge", "both"] as const) {
    it(`${setup}: one trace, generate → llm, getWeather, llm; model, messages, output and tokens once; the tool's arguments and result; stdout as untraced`, () => {
      const run = runs.get(setup)!;
      expectTracedLikeDoneWhen(runs.get("plain")!, run, `genkit/${setup}`);
      const [root] = run.traces[0]!.spans.filter((s) => !s.parentUuid);
      // generate's own span is the root (a base span: the service keeps its input as text), and the trace's input and output are its.
      const asked = JSON.stringify([{ role: "user", content: "What is the weather in Baltimore?" }]);
      expect(root).toMatchObject({ name: "generate", type: "base", input: asked, output: "Orders ship in 2 days." });
      expect(run.traces[0]).toMatchObject({ input: asked, output: "Orders ship in 2 days." });
      expect(llmSpans(run).map((s) => [s.model, s.provider, s.output])).toEqual([
        ["gemini-flash-latest", "Gemini", 'getWeather({"location":"Orders ship in 2 days."})'],
        ["gemini-flash-latest", "Gemini", "Orders ship in 2 days."],
      ]);
      expect(toolSpans(run).map((s) => [s.name, s.input, s.output])).toEqual([["getWeather", { location: "Orders ship in 2 days." }, "The current weather in Orders ship in 2 days. is 63°F and sunny."]]);
    });
  }

  it("zero-code: nothing recorded (the googleAI plugin calls the Gemini API with its own fetch, no SDK to hook), the app unchanged", () => {
    const [plain, run] = [runs.get("plain")!, runs.get("zero-code")!];
    expect(run.traces).toEqual([]);
    expect({ code: run.code, stdout: normalized(run), stderr: run.stderr }).toEqual({ code: plain.code, stdout: normalized(plain), stderr: plain.stderr });
    expect(run.calls.map((c) => c.toolCalls)).toEqual(plain.calls.map((c) => c.toolCalls));
  });
});
