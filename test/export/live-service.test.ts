import { afterEach, describe, expect, it } from "vitest";
import { resolveOptions } from "../../src/config/options.js";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { configure, currentTraceUuid, flush, observe, shutdown, stats, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { postedTraces, type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer | undefined;
let recorder: Recorder | undefined;
afterEach(async () => {
  await shutdown(0);
  await dev?.close();
  await recorder?.close();
  dev = undefined;
  recorder = undefined;
});

async function emulator(options = {}) {
  dev = await startDevServer({ port: 0 });
  const logger = configureForTest(dev.url, dev.projectKey, options);
  return { dev, logger };
}

// "Payloads the live service reads the way we mean them": the emulator stays strict (our tests
// run it in strict mode), and what we send also reads right to the live service.
describe("online evaluation reads input and output", () => {
  it("a span's test case is its input and output unless the app set them, and its fields go flat too", async () => {
    const { dev } = await emulator();
    const answer = observe({ type: "llm", model: "gpt-4o" }, async (q: string, _options: { temperature: number }) => {
      updateCurrentSpan({ llmTestCase: { input: "When do orders ship?", actualOutput: "In 2 days.", expectedOutput: "2 days", retrievalContext: ["Orders ship in 2 days."] } });
      return `re: ${q}`;
    });
    const pinned = observe({ name: "pinned" }, async () => {
      updateCurrentSpan({ input: "mine", output: "mine too", llmTestCase: { input: "tc", actualOutput: "tc out" } });
      return "ignored";
    });
    const root = observe({ type: "agent", name: "evaluated" }, async (q: string) => {
      updateCurrentTrace({ llmTestCase: { input: q, actualOutput: "In 2 days.", context: ["policy"] } });
      await answer(q, { temperature: 0 });
      await pinned();
      return currentTraceUuid()!;
    });
    const uuid = await root("When do orders ship?");
    expect(await flush()).toMatchObject({ ok: true });
    const t = dev.state.traces[uuid]!;
    expect(t.fields).toMatchObject({ input: "When do orders ship?", output: "In 2 days.", context: ["policy"] });
    const llm = t.spans.find((s) => s.type === "llm")!;
    expect(llm).toMatchObject({ input: [{ role: "user", content: "When do orders ship?" }], output: "In 2 days.", expectedOutput: "2 days", retrievalContext: ["Orders ship in 2 days."] });
    expect(t.spans.find((s) => s.name === "pinned")).toMatchObject({ input: "mine", output: "mine too" });
  });

  it("a root called with one string sends that string as the trace's input (a thread's user turn)", async () => {
    const { dev } = await emulator();
    const uuid = await observe({ name: "turn" }, async (_q: string) => currentTraceUuid()!)("Hello there");
    expect(await flush()).toMatchObject({ ok: true });
    expect(dev.state.traces[uuid]!.fields.input).toBe("Hello there");
  });
});

describe("llm span input from the call's shape", () => {
  const cases: [string, unknown[], { role: string; content: string }[]][] = [
    ["a messages list", [[{ role: "system", content: "Be brief" }, { role: "user", content: "Hi" }]], [{ role: "system", content: "Be brief" }, { role: "user", content: "Hi" }]],
    ["an OpenAI Chat request", [{ model: "m", messages: [{ role: "user", content: "Hi" }] }], [{ role: "user", content: "Hi" }]],
    ["an Anthropic request with a system prompt", [{ model: "m", system: "Be brief", messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] }], [{ role: "system", content: "Be brief" }, { role: "user", content: "Hi" }]],
    ["an OpenAI Responses request", [{ model: "m", instructions: "Be brief", input: "Hi" }], [{ role: "system", content: "Be brief" }, { role: "user", content: "Hi" }]],
    ["a prompt string", ["Hi"], [{ role: "user", content: "Hi" }]],
    ["messages then options", [[{ role: "user", content: "Hi" }], { temperature: 0 }], [{ role: "user", content: "Hi" }]],
    ["plain arguments: one message each", ["Hi", 2], [{ role: "user", content: "Hi" }, { role: "user", content: "2" }]],
  ];
  it.each(cases)("%s", async (_what, args, expected) => {
    const { dev } = await emulator();
    const llm = observe({ type: "llm", model: "m" }, async (..._args: unknown[]) => {
      return currentTraceUuid()!;
    });
    const uuid = await llm(...args);
    expect(await flush()).toMatchObject({ ok: true });
    expect(dev.state.traces[uuid]!.spans[0]!.input).toEqual(expected);
  });
});

describe("the service's vocabulary and required fields", () => {
  it("maps provider names loosely, passes unknown ones through", async () => {
    const { dev } = await emulator();
    const names: Record<string, string> = { "openai.chat": "OpenAI", anthropic: "Anthropic", "google.vertex": "VertexAI", "Google GenAI": "Gemini", "azure-openai": "Azure", "aws bedrock": "Bedrock", "mistral.ai": "Mistral", acme: "acme" };
    const uuids: [string, string][] = [];
    for (const [raw, expected] of Object.entries(names)) {
      uuids.push([await observe({ type: "llm", model: "m", provider: raw }, async () => currentTraceUuid()!)(), expected]);
    }
    expect(await flush()).toMatchObject({ ok: true });
    for (const [uuid, expected] of uuids) expect(dev.state.traces[uuid]!.spans[0]!.provider).toBe(expected);
  });

  it("fills a missing model and embedder with the documented placeholders, warning once each", async () => {
    const { dev, logger } = await emulator();
    const llm = observe({ type: "llm" }, async () => currentTraceUuid()!);
    const retriever = observe({ type: "retriever" }, async () => currentTraceUuid()!);
    const a = await llm();
    await llm();
    const b = await retriever();
    expect(await flush()).toMatchObject({ ok: true });
    expect(dev.state.traces[a]!.spans[0]!.model).toBe("unknown-model");
    expect(dev.state.traces[b]!.spans[0]!.embedder).toBe("default-embedder");
    expect(logger.lines.filter((l) => l.includes("had no model"))).toHaveLength(1);
    expect(logger.lines.filter((l) => l.includes("had no embedder"))).toHaveLength(1);
  });

  it("environment is one the live service takes: a TypeError at configure(), a warning for the variable or an update", async () => {
    expect(() => configure({ apiKey: "k", environment: "qa" as never, registerExitHooks: false })).toThrow(/option `environment` must be one of production, development, staging, testing/);
    const fromEnv = resolveOptions({}, { EVALTRACE_ENVIRONMENT: "qa" });
    expect(fromEnv.environment).toBe("development");
    expect(fromEnv.envProblems[0]).toContain("EVALTRACE_ENVIRONMENT");
    expect(resolveOptions({}, { EVALTRACE_ENVIRONMENT: "Staging" }).environment).toBe("staging");
    const { dev, logger } = await emulator({ environment: "production" });
    const uuid = await observe({ name: "env" }, async () => {
      updateCurrentTrace({ environment: "qa" as never });
      return currentTraceUuid()!;
    })();
    expect(await flush()).toMatchObject({ ok: true });
    expect(dev.state.traces[uuid]!.fields.environment).toBe("production");
    expect(logger.lines.some((l) => l.includes("environment"))).toBe(true);
  });
});

describe("a service that refuses a wire shape the spec allows", () => {
  it("list form refused: each trace alone from then on; PUT refused: counted and said once", async () => {
    recorder = await startRecorder((_n, req) => {
      if (req.method === "PUT") return { status: 405, body: { success: false, error: "method not allowed" } };
      if (req.raw.startsWith('{"traces"')) return { status: 415, body: { success: false, error: "unsupported body" } };
      return { status: 200 };
    });
    const logger = configureForTest(recorder.url, "svc_local_proj_KEY", { batch: { flushIntervalMillis: 60_000 } });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const late = observe({ name: "late" }, async () => gate);
    const f = observe({ name: "t" }, (i: number) => {
      if (i === 0) void late();
      return i;
    });
    for (let i = 0; i < 3; i++) f(i);
    expect(await flush()).toMatchObject({ ok: true, delivered: 3 });
    for (let i = 0; i < 2; i++) f(i);
    expect(await flush()).toMatchObject({ ok: true, delivered: 2 });
    const lists = recorder.requests.filter((r) => r.method === "POST" && r.raw.startsWith('{"traces"'));
    // Refused, then remembered: no list form after the first trace sent alone. (One flush may
    // send its traces as more than one list request at once when building them takes long on a
    // loaded machine; each is refused, and none follows.)
    expect(lists.length).toBeGreaterThanOrEqual(1);
    const firstSingle = recorder.requests.findIndex((r) => r.method === "POST" && !r.raw.startsWith('{"traces"'));
    expect(recorder.requests.findLastIndex((r) => r.method === "POST" && r.raw.startsWith('{"traces"'))).toBeLessThan(firstSingle);
    const singles = recorder.requests.filter((r) => r.method === "POST" && !r.raw.startsWith('{"traces"'));
    expect(singles).toHaveLength(5);
    expect(postedTraces(lists)).toHaveLength(3);
    release();
    await new Promise((r) => setTimeout(r, 50));
    await flush();
    const again = observe({ name: "late2" }, async () => gate);
    observe({ name: "t2" }, () => {
      void again();
    })();
    await flush();
    await new Promise((r) => setTimeout(r, 50));
    await flush();
    // The two late spans released together went out at once (concurrency 2); the third was not sent.
    expect(recorder.requests.filter((r) => r.method === "PUT")).toHaveLength(2);
    expect(stats().spansNotUpdatable).toBe(3);
    expect(logger.lines.filter((l) => l.includes("refused PUT"))).toHaveLength(1);
    expect(logger.lines.filter((l) => l.includes("refused the list form"))).toHaveLength(1);
  });
});
