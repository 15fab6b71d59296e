import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredTrace } from "../../src/devserver/store/store.js";
import { currentTraceUuid, flush, observe, shutdown, stats, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());
afterEach(async () => {
  await shutdown();
});

function setup() {
  return configureForTest(dev.url, dev.projectKey);
}

/** Runs `body` as the root span of a new trace and returns the trace the emulator stored. */
async function traced(body: () => void, options: Parameters<typeof observe>[0] = { name: "root" }): Promise<StoredTrace> {
  let uuid: string | undefined;
  observe(options ?? {}, () => {
    uuid = currentTraceUuid();
    body();
  })();
  const result = await flush();
  expect(result.notDelivered).toEqual([]);
  expect(result.ok).toBe(true);
  const stored = dev.state.traces[uuid!];
  if (!stored) throw new Error("trace not stored");
  return stored;
}

const warnings = (lines: string[], field: string) => lines.filter((l) => l.startsWith("warn:") && l.includes(field));

describe("field checks: a bad field never gets the trace rejected", () => {
  it("drops an empty threadId with one warning, however often it is set", async () => {
    const logger = setup();
    const first = await traced(() => updateCurrentTrace({ threadId: "", userId: "  " }));
    const second = await traced(() => updateCurrentTrace({ threadId: "" }));
    expect(first.fields.threadId).toBeUndefined();
    expect(first.fields.userId).toBeUndefined();
    expect(second.fields.threadId).toBeUndefined();
    expect(warnings(logger.lines, "threadId")).toHaveLength(1);
    expect(warnings(logger.lines, "userId")).toHaveLength(1);
  });

  it("repairs a test case whose retrievalContext holds documents instead of strings", async () => {
    const logger = setup();
    const t = await traced(() =>
      updateCurrentTrace({
        metricCollection: "answers",
        llmTestCase: { input: "q", actualOutput: "a", retrievalContext: [{ text: "doc" }, { pageContent: "page" }, 3] as never },
      }),
    );
    expect(t.fields.llmTestCase).toEqual({ input: "q", actualOutput: "a", retrievalContext: ["doc", "page", "3"] });
    expect(warnings(logger.lines, "llmTestCase.retrievalContext")).toHaveLength(1);
  });

  it("repairs a numeric observe name and keeps the span", async () => {
    const logger = setup();
    const t = await traced(() => {}, { name: 123 } as never);
    expect(t.spans[0]!.name).toBe("123");
    expect(warnings(logger.lines, "name")).toHaveLength(1);
  });

  it("checks every kind of field where it is set, on spans and traces", async () => {
    const logger = setup();
    const t = await traced(
      () => {
        observe({ type: "llm", model: "", provider: 7 } as never, () => {
          updateCurrentSpan({
            inputTokenCount: 12.4,
            outputTokenCount: -3,
            costPerInputToken: Number.NaN,
            promptVersion: 3 as never,
            metricCollection: "   ",
            toolsCalled: [{ name: "search", type: "function", args: { q: 1 } }, { name: "" }, "lookup"] as never,
            expectedTools: { name: "single" } as never,
            context: "one doc" as never,
            llmTestCase: { input: { q: 1 }, actualOutput: "a", bogus: 1 } as never,
            name: "" as never,
          });
        })();
        updateCurrentTrace({
          name: 42 as never,
          tags: ["ok", "", 5, null, "ok"] as never,
          environment: "",
          expectedOutput: { answer: 1 } as never,
          llmTestCase: { input: "only input" } as never,
          drop: "yes",
        } as never);
      },
      { type: "agent", name: "checks", availableTools: "search", agentHandoffs: [1, "b"] } as never,
    );
    expect(t.fields).toMatchObject({ name: "42", tags: ["ok", "5"], expectedOutput: '{"answer":1}' });
    expect(t.fields.environment).toBe("development");
    expect(t.fields.llmTestCase).toBeUndefined();
    expect(t.fields.drop).toBeUndefined();
    const agent = t.spans.find((s) => s.type === "agent")!;
    expect(agent).toMatchObject({ availableTools: ["search"], agentHandoffs: ["1", "b"] });
    const llm = t.spans.find((s) => s.type === "llm")!;
    expect(llm).toMatchObject({
      provider: "7",
      inputTokenCount: 12,
      promptVersion: "3",
      toolsCalled: [{ name: "search", type: "FUNCTION" }],
      expectedTools: [{ name: "single" }],
      context: ["one doc"],
      llmTestCase: { input: '{"q":1}', actualOutput: "a" },
    });
    for (const absent of ["outputTokenCount", "costPerInputToken", "metricCollection"]) expect(llm[absent]).toBeUndefined();
    // The service requires a model on llm spans: the dropped one is replaced by the placeholder.
    expect(llm.model).toBe("unknown-model");
    for (const field of ["model", "inputTokenCount", "outputTokenCount", "costPerInputToken", "toolsCalled", "drop", "tags", "environment", "llmTestCase"]) {
      expect(warnings(logger.lines, field).length, field).toBeGreaterThan(0);
    }
    expect(stats()!.tracesFailed).toBe(0);
  });

  it("keeps at most 100 distinct tags per trace and says so once", async () => {
    const logger = setup();
    const t = await traced(() => {
      updateCurrentTrace({ tags: Array.from({ length: 80 }, (_, i) => `a${i}`) });
      updateCurrentTrace({ tags: Array.from({ length: 80 }, (_, i) => `b${i}`) });
      updateCurrentTrace({ tags: ["a1", "c"] });
    });
    expect(t.fields.tags).toHaveLength(100);
    expect(new Set(t.fields.tags as string[]).size).toBe(100);
    expect(warnings(logger.lines, "tags")).toHaveLength(1);
  });

  it("applies observe metadata, which it accepts in its options", async () => {
    setup();
    const t = await traced(() => {}, { name: "with-meta", metadata: { team: "search" } });
    expect(t.spans[0]!.metadata).toEqual({ team: "search" });
  });

  it("ignores update calls given something other than an object, without throwing", async () => {
    setup();
    const t = await traced(() => {
      updateCurrentSpan(null as never);
      updateCurrentTrace("name" as never);
      updateCurrentTrace([1] as never);
    });
    expect(t.spans).toHaveLength(1);
  });
});

describe("observe misuse", () => {
  it("throws a TypeError at definition when the arguments are swapped", () => {
    const fn = (x: number) => x;
    expect(() => observe(fn as never, { name: "swapped" } as never)).toThrow(TypeError);
    expect(() => observe(fn as never, { name: "swapped" } as never)).toThrow(/swapped.*observe\(options, fn\)/);
    expect(() => observe(fn as never, 1 as never)).toThrow(TypeError);
  });

  it("warns once about an unknown option, suggesting the option meant", async () => {
    const logger = setup();
    const f = observe({ name: "typo", metricColection: "answers" } as never, () => 1);
    f();
    f();
    observe({ name: "typo2", metricColection: "answers" } as never, () => 1)();
    await flush();
    const lines = warnings(logger.lines, "metricColection");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("did you mean metricCollection?");
    expect(Object.values(dev.state.traces).some((t) => t.fields.name === "typo")).toBe(true);
  });

  it("warns once about unknown fields of the update functions", async () => {
    const logger = setup();
    await traced(() => {
      updateCurrentSpan({ inputTokens: 3 } as never);
      updateCurrentSpan({ inputTokens: 4 } as never);
      updateCurrentTrace({ threadID: "t" } as never);
    });
    expect(warnings(logger.lines, "inputTokens")).toHaveLength(1);
    expect(warnings(logger.lines, "threadID")[0]).toContain("did you mean threadId?");
  });
});
