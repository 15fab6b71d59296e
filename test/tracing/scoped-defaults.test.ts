import { createOpenAI } from "@ai-sdk/openai";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { generateText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import { Client, currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown, updateCurrentSpan, withTracingContext } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let logger: ReturnType<typeof configureForTest>;
// An app's own OpenTelemetry setup with our processor beside it (the bridge).
const provider = new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] });
const tracer = provider.getTracer("app");

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
});
beforeEach(() => {
  logger = configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

/** Runs `fn` in a root agent span; returns the stored trace's spans by name and its fields. */
async function traced(fn: () => Promise<unknown>) {
  let uuid = "";
  await observe({ type: "agent", name: "agent" }, async () => {
    uuid = currentTraceUuid()!;
    await fn();
  })();
  expect((await flush()).ok).toBe(true);
  const stored = dev.state.traces[uuid]!;
  return { spans: stored.spans, byName: (name: string) => stored.spans.find((s) => s.name === name) as StoredSpan, fields: stored.fields };
}

const promptFields = (s: StoredSpan) => ({ alias: s.promptAlias, version: s.promptVersion, label: s.promptLabel, hash: s.promptCommitHash });

describe("withTracingContext", () => {
  it("gives every span inside its defaults: observe, wrapOpenAI and OTel-bridged llm spans; tags onto the trace", async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    const aiOpenAI = createOpenAI({ apiKey: "sk-test", baseURL: fake.url });
    const { spans, byName, fields } = await traced(() =>
      withTracingContext({ metricCollection: "agent-quality", tags: ["beta"], metadata: { run: "r1" }, prompt: { alias: "support", version: "2" } }, async () => {
        await observe({ type: "llm", name: "own llm", model: "m" }, async () => "ok")();
        await observe({ type: "tool", name: "tool", metadata: { run: "tool's own" } }, async () => "ok")();
        await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When?" }] });
        await generateText({ model: aiOpenAI.chat("gpt-4o-mini"), prompt: "When?", experimental_telemetry: { isEnabled: true, tracer, functionId: "bridged" } });
      }),
    );
    const llm = spans.filter((s) => s.type === "llm");
    // Ours, wrapOpenAI's, and the AI SDK's (through the OTel bridge).
    expect(llm.length).toBeGreaterThanOrEqual(3);
    expect(llm.some((s) => s.integration === "OpenAI")).toBe(true);
    expect(llm.some((s) => s.integration === "AI SDK")).toBe(true);
    for (const s of llm) {
      expect(s.metricCollection, String(s.name)).toBe("agent-quality");
      expect(promptFields(s), String(s.name)).toEqual({ alias: "support", version: "2", label: undefined, hash: undefined });
      expect((s.metadata as Record<string, unknown>).run, String(s.name)).toBe("r1");
    }
    // Not llm: metadata only, its own keys first.
    expect(byName("tool").metricCollection).toBeUndefined();
    expect(byName("tool").promptAlias).toBeUndefined();
    expect(byName("tool").metadata).toEqual({ run: "tool's own" });
    // The root was opened outside the scope: untouched.
    expect(byName("agent").metadata).toBeUndefined();
    expect(fields.tags).toEqual(["beta"]);
  });

  it("test-case defaults (what the vendor SDK's llm/agent span context gives): llm and agent spans inside, the span's own win", async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    const expectedTools = [{ name: "lookup_order" }];
    const { spans, byName } = await traced(() =>
      withTracingContext({ expectedOutput: "in 2 days", retrievalContext: ["Orders ship in 2 days."], context: ["FAQ"], expectedTools }, async () => {
        await observe({ type: "agent", name: "inner agent" }, async () => {
          await observe({ type: "llm", name: "own llm", model: "m", expectedOutput: "its own" }, async () => "ok")();
          await observe({ type: "tool", name: "tool" }, async () => "ok")();
          await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When?" }] });
        })();
        await withTracingContext({ expectedOutput: "inner" }, () => observe({ type: "llm", name: "nested llm", model: "m" }, async () => "ok")());
      }),
    );
    expect(byName("inner agent")).toMatchObject({ expectedOutput: "in 2 days", retrievalContext: ["Orders ship in 2 days."], context: ["FAQ"], expectedTools });
    expect(byName("own llm")).toMatchObject({ expectedOutput: "its own", retrievalContext: ["Orders ship in 2 days."] });
    expect(spans.find((s) => s.integration === "OpenAI")).toMatchObject({ expectedOutput: "in 2 days", expectedTools });
    expect(byName("nested llm")).toMatchObject({ expectedOutput: "inner", context: ["FAQ"] });
    expect(byName("tool").expectedOutput).toBeUndefined();
    expect(byName("tool").retrievalContext).toBeUndefined();
  });

  it("nests: inner scalars replace outer ones, tags and metadata merge; a span's own values win", async () => {
    const { byName, fields } = await traced(() =>
      withTracingContext({ metricCollection: "outer", tags: ["a"], metadata: { team: "x", level: "outer" }, prompt: { alias: "outer" } }, () =>
        withTracingContext({ metricCollection: "inner", tags: ["b", "a"], metadata: { level: "inner" } }, async () => {
          await observe({ type: "llm", name: "inner llm", model: "m" }, async () => "ok")();
          await observe({ type: "llm", name: "own values", model: "m", metricCollection: "own", prompt: { alias: "own", label: "staging" } }, async () => "ok")();
        }),
      ),
    );
    expect(byName("inner llm")).toMatchObject({ metricCollection: "inner", promptAlias: "outer", metadata: { team: "x", level: "inner" } });
    expect(byName("own values")).toMatchObject({ metricCollection: "own", promptAlias: "own", promptLabel: "staging" });
    expect(fields.tags).toEqual(["a", "b"]);
  });

  it("returns what fn returns, as it returns it; wrong defaults are dropped with a warning; fn not a function is a TypeError", async () => {
    const value = { same: true };
    expect(withTracingContext({}, () => value)).toBe(value);
    const p = Promise.resolve(1);
    expect(withTracingContext({ tags: ["t"] }, () => p)).toBe(p);
    expect(() =>
      withTracingContext({}, () => {
        throw new RangeError("app's own");
      }),
    ).toThrow(RangeError);
    expect(() => withTracingContext({}, 42 as never)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = { name: "c" };
    cyclic.self = cyclic;
    const { byName } = await traced(() =>
      withTracingContext({ metricCollection: 7 as never, tags: "solo" as never, metadata: cyclic, prompt: { version: "1" }, colour: "red" } as never, async () => {
        await observe({ type: "llm", name: "llm", model: "m" }, async () => "ok")();
      }),
    );
    expect(byName("llm").metricCollection).toBe("7");
    expect(byName("llm").promptVersion).toBeUndefined();
    expect((byName("llm").metadata as Record<string, unknown>).self).toBe("<circular>");
    expect(logger.lines.some((l) => l.includes("prompt names no prompt"))).toBe(true);
    expect(logger.lines.some((l) => l.includes('unknown default "colour"'))).toBe(true);
  });
});

describe("prompt links", () => {
  it("updateCurrentSpan({ prompt }) takes what client.prompts.push returns, or alias with version, label or hash", async () => {
    const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url });
    const pushed = await client.prompts.push({ alias: "support", text: "Answer {question}" });
    const { byName } = await traced(async () => {
      await observe({ type: "llm", name: "pushed", model: "m" }, async () => updateCurrentSpan({ prompt: pushed }))();
      await observe({ type: "llm", name: "pushed+alias", model: "m" }, async () => updateCurrentSpan({ prompt: { ...pushed, alias: "support" } }))();
      await observe({ type: "llm", name: "version", model: "m" }, async () => updateCurrentSpan({ prompt: { alias: "support", version: 3 } }))();
      await observe({ type: "llm", name: "label", model: "m", prompt: { alias: "support", label: "production" } }, async () => "ok")();
      await observe({ type: "tool", name: "tool" }, async () => updateCurrentSpan({ prompt: { alias: "support" } }))();
      await observe({ type: "llm", name: "hostile", model: "m" }, async () => {
        updateCurrentSpan({ prompt: "support" as never });
        updateCurrentSpan({ prompt: { alias: "x".repeat(10_000) } });
      })();
    });
    expect(promptFields(byName("pushed"))).toEqual({ alias: undefined, version: undefined, label: undefined, hash: pushed.hash });
    expect(promptFields(byName("pushed+alias"))).toEqual({ alias: "support", version: undefined, label: undefined, hash: pushed.hash });
    expect(promptFields(byName("version"))).toEqual({ alias: "support", version: "3", label: undefined, hash: undefined });
    expect(promptFields(byName("label"))).toEqual({ alias: "support", version: undefined, label: "production", hash: undefined });
    expect(byName("tool").promptAlias).toBeUndefined();
    expect((byName("hostile").promptAlias as string).length).toBeLessThan(10_000);
    expect(logger.lines.some((l) => l.includes("prompt applies to llm spans; ignored on a tool span"))).toBe(true);
  });
});
