import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import {
  currentSpan,
  currentSpanUuid,
  currentTrace,
  currentTraceUuid,
  flush,
  observe,
  type SpanHandle,
  shutdown,
  type TraceHandle,
  updateAgentSpan,
  updateLlmSpan,
  updateRetrieverSpan,
  updateToolSpan,
} from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
let logger: ReturnType<typeof configureForTest>;

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
beforeEach(() => {
  logger = configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

const spansOf = (uuid: string) => dev.state.traces[uuid]!.spans;
const warnings = (text: string) => logger.lines.filter((l) => l.startsWith("warn") && l.includes(text));

describe("currentSpan() and currentTrace()", () => {
  it("are undefined outside a span, and the free functions do nothing there", () => {
    expect(currentSpan()).toBeUndefined();
    expect(currentTrace()).toBeUndefined();
    expect(() => updateLlmSpan({ model: "m" })).not.toThrow();
  });

  it("update, setOutput and recordError the span they were taken in; ids match the free functions", async () => {
    let uuid = "";
    const result = await observe({ type: "llm", name: "call", model: "gpt-4o" }, async () => {
      const span = currentSpan()!;
      uuid = currentTraceUuid()!;
      expect(span.uuid).toBe(currentSpanUuid());
      expect(span.traceUuid).toBe(uuid);
      expect(span.type).toBe("llm");
      expect(currentSpan()).toBe(span);
      expect(currentTrace()!.uuid).toBe(uuid);
      span.update({ inputTokenCount: 7, metadata: { cached: true } });
      span.setOutput("the reply the app chose");
      span.recordError(new Error("the model refused"));
      currentTrace()!.update({ tags: ["handles"], metadata: { tenant: "b" } });
      return "returned value";
    })();
    // The app's return value and control flow are untouched.
    expect(result).toBe("returned value");
    expect((await flush()).ok).toBe(true);
    const [span] = spansOf(uuid);
    expect(span).toMatchObject({
      name: "call",
      status: "ERRORED",
      error: expect.stringContaining("the model refused"),
      inputTokenCount: 7,
      metadata: { cached: true },
      output: "the reply the app chose",
    });
    expect(dev.state.traces[uuid]!.fields).toMatchObject({ tags: ["handles"], metadata: { tenant: "b" } });
  });

  it("a trace handle's recordError makes the trace ERRORED through its root, from any span inside", async () => {
    const uuid = await observe({ type: "agent", name: "root" }, async () => {
      await observe({ type: "tool", name: "inner" }, async () => currentTrace()!.recordError(new Error("tenant quota exceeded")))();
      return currentTraceUuid()!;
    })();
    expect((await flush()).ok).toBe(true);
    expect(dev.state.traces[uuid]!.fields.status).toBe("ERRORED");
    const byName = Object.fromEntries(spansOf(uuid).map((s) => [s.name, s]));
    expect(byName.root).toMatchObject({ status: "ERRORED", error: expect.stringContaining("tenant quota exceeded") });
    expect(byName.inner!.status).toBe("SUCCESS");
  });

  it("a handle used after its span ended: no throw, nothing changes, one warning", async () => {
    let span!: SpanHandle;
    let trace!: TraceHandle;
    const uuid = await observe({ type: "tool", name: "lookup" }, async () => {
      span = currentSpan()!;
      trace = currentTrace()!;
      return currentTraceUuid()!;
    })();
    expect(span.ended).toBe(true);
    expect(() => {
      span.update({ description: "too late" });
      span.setOutput("too late");
      span.recordError(new Error("too late"));
    }).not.toThrow();
    expect((await flush()).ok).toBe(true);
    expect(() => {
      trace.update({ tags: ["too late"] });
      trace.setOutput("too late");
      trace.recordError(new Error("too late"));
      trace.drop();
      trace.drop();
    }).not.toThrow();
    expect(warnings("dropped after it was delivered")).toHaveLength(1);
    const [stored] = spansOf(uuid);
    expect(stored!.status).toBe("SUCCESS");
    expect(stored!.description).toBeUndefined();
    expect(warnings("span handle")).toHaveLength(1);
    expect(warnings("trace handle update() called after")).toHaveLength(1);
    expect(warnings("trace handle recordError() called after")).toHaveLength(1);
    expect(dev.state.traces[uuid]!.fields.tags).toBeUndefined();
  });
});

describe("typed span updates", () => {
  it("each sets its type's fields on a span of that type", async () => {
    let uuid = "";
    await observe({ type: "agent", name: "agent" }, async () => {
      uuid = currentTraceUuid()!;
      updateAgentSpan({ availableTools: ["search"], agentHandoffs: ["billing"] });
      await observe({ type: "llm", name: "llm" }, async () => updateLlmSpan({ model: "gpt-4o-mini", provider: "openai", outputTokenCount: 3, prompt: { alias: "greeting", label: "production" } }))();
      await observe({ type: "retriever", name: "retriever" }, async () => updateRetrieverSpan({ embedder: "text-embedding-3-small", topK: 4, chunkSize: 512 }))();
      await observe({ type: "tool", name: "tool" }, async () => updateToolSpan({ description: "Finds orders", output: { found: true } }))();
    })();
    expect((await flush()).ok).toBe(true);
    const byName = Object.fromEntries(spansOf(uuid).map((s) => [s.name, s]));
    expect(byName.agent).toMatchObject({ availableTools: ["search"], agentHandoffs: ["billing"] });
    expect(byName.llm).toMatchObject({ model: "gpt-4o-mini", provider: "OpenAI", outputTokenCount: 3, promptAlias: "greeting", promptLabel: "production" });
    expect(byName.retriever).toMatchObject({ embedder: "text-embedding-3-small", topK: 4, chunkSize: 512 });
    expect(byName.tool).toMatchObject({ description: "Finds orders", output: { found: true } });
  });

  it("in a span of another type: nothing is set, one warning per helper and type", async () => {
    const uuid = await observe({ type: "llm", name: "llm", model: "m" }, async () => {
      for (let i = 0; i < 3; i++) {
        updateRetrieverSpan({ embedder: "e", topK: 1 });
        updateToolSpan({ description: "d", metadata: { leaked: true } });
      }
      return currentTraceUuid()!;
    })();
    expect((await flush()).ok).toBe(true);
    const [span] = spansOf(uuid);
    expect(span!.embedder).toBeUndefined();
    expect(span!.description).toBeUndefined();
    expect(span!.metadata).toBeUndefined();
    expect(warnings("updateRetrieverSpan called in a llm span")).toHaveLength(1);
    expect(warnings("updateToolSpan called in a llm span")).toHaveLength(1);
  });

  it("hostile field objects never throw", async () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );
    await observe({ type: "llm", name: "llm", model: "m" }, async () => {
      expect(() => updateLlmSpan(hostile)).not.toThrow();
      expect(() => updateLlmSpan(null as never)).not.toThrow();
      expect(() => currentSpan()!.update(hostile)).not.toThrow();
      expect(() => currentTrace()!.update(hostile)).not.toThrow();
    })();
    expect((await flush()).ok).toBe(true);
  });
});
