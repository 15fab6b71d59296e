import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredSpan, StoredTrace } from "../../src/devserver/store/store.js";
import {
  currentSpanUuid,
  currentTraceUuid,
  flush,
  observe,
  shutdown,
  stats,
  updateCurrentSpan,
  updateCurrentTrace,
} from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
});
afterAll(() => dev.close());
afterEach(async () => {
  await shutdown();
});

function setup(options = {}) {
  return configureForTest(dev.url, dev.projectKey, options);
}

function trace(uuid: string): StoredTrace {
  const t = dev.state.traces[uuid];
  if (!t) throw new Error(`trace ${uuid} not stored`);
  return t;
}

function byName(t: StoredTrace, name: string): StoredSpan {
  const s = t.spans.find((x) => x.name === name);
  if (!s) throw new Error(`no span ${name} in ${t.spans.map((x) => x.name).join(",")}`);
  return s;
}

describe("observe", () => {
  it("nests spans across await, Promise.all, timers and async iterators", async () => {
    setup();
    let traceUuid = "";
    const leaf = observe({ name: "leaf" }, async (n: number) => n * 2);
    const timer = observe({ name: "timer" }, () => new Promise<number>((r) => setImmediate(() => r(leaf(5)))));
    const stream = observe({ type: "tool", name: "stream" }, async function* () {
      yield "a";
      yield String(await leaf(1));
    });
    const root = observe({ type: "agent", name: "root" }, async () => {
      traceUuid = currentTraceUuid()!;
      const [a, b] = await Promise.all([leaf(1), leaf(2)]);
      const c = await timer();
      let s = "";
      for await (const chunk of stream()) s += chunk;
      return `${a}${b}${c}${s}`;
    });
    expect(await root()).toBe("2410a2");
    expect((await flush()).ok).toBe(true);
    const t = trace(traceUuid);
    const root_ = byName(t, "root");
    expect(root_.parentUuid).toBeUndefined();
    const leaves = t.spans.filter((s) => s.name === "leaf");
    expect(leaves).toHaveLength(4);
    const timerSpan = byName(t, "timer");
    const streamSpan = byName(t, "stream");
    expect(timerSpan.parentUuid).toBe(root_.uuid);
    expect(streamSpan.parentUuid).toBe(root_.uuid);
    expect(streamSpan.output).toBe("a2");
    // Two leaves under root (Promise.all), one under the timer span, one under the stream span.
    expect(leaves.filter((l) => l.parentUuid === root_.uuid)).toHaveLength(2);
    expect(leaves.filter((l) => l.parentUuid === timerSpan.uuid)).toHaveLength(1);
    expect(leaves.filter((l) => l.parentUuid === streamSpan.uuid)).toHaveLength(1);
    for (const s of t.spans) expect(s.parentUuid).not.toBe(t.uuid);
  });

  it("keeps sync functions sync, with this and arguments", async () => {
    setup();
    const obj = {
      factor: 3,
      times: observe({ name: "times" }, function (this: { factor: number }, n: number) {
        return n * this.factor;
      }),
    };
    const result = obj.times(4);
    expect(result).toBe(12); // not a promise
    expect(obj.times.length).toBe(1);
    await flush();
    const stored = Object.values(dev.state.traces).find((t) => t.fields.name === "times")!;
    expect(stored.spans[0]).toMatchObject({ name: "times", input: "4", output: "12", type: "base" });
  });

  it("records errors and rethrows the same object, sync and async", async () => {
    setup();
    const boom = new Error("boom");
    const failSync = observe({ name: "failSync" }, () => {
      throw boom;
    });
    const failAsync = observe({ name: "failAsync" }, async () => {
      throw boom;
    });
    expect(() => failSync()).toThrow(boom);
    await expect(failAsync()).rejects.toBe(boom);
    await flush();
    for (const name of ["failSync", "failAsync"]) {
      const t = Object.values(dev.state.traces).find((x) => x.fields.name === name)!;
      expect(t.fields.status).toBe("ERRORED");
      expect(t.spans[0]).toMatchObject({ status: "ERRORED", error: "boom" });
    }
  });

  it("preserves sub-millisecond order of spans that start in the same millisecond", async () => {
    setup();
    let uuid = "";
    const child = observe({ name: "c" }, () => 1);
    const root = observe({ name: "order" }, () => {
      uuid = currentTraceUuid()!;
      for (let i = 0; i < 20; i++) child();
    });
    root();
    await flush();
    const spans = trace(uuid).spans.filter((s) => s.name === "c");
    const starts = spans.map((s) => s.startTime);
    expect(new Set(starts).size).toBe(20);
    expect([...starts].sort()).toEqual(starts);
    for (const s of starts) expect(s).toMatch(/\.\d{6}Z$/);
  });

  it("captures hostile inputs and outputs safely and never throws", async () => {
    setup();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const hostile = {
      big: 10n,
      fn() {},
      sym: Symbol("s"),
      buf: Buffer.from("hello"),
      map: new Map([["k", 1]]),
      err: new Error("inner"),
      huge: "x".repeat(1_000_000),
      get bad() {
        throw new Error("getter");
      },
      nan: Number.NaN,
      nul: "a\u0000b",
    };
    let uuid = "";
    const f = observe({ name: "hostile" }, (_a: unknown, _b: unknown) => {
      uuid = currentTraceUuid()!;
      return cyclic;
    });
    expect(f(hostile, cyclic)).toBe(cyclic);
    expect((await flush()).ok).toBe(true);
    const span = trace(uuid).spans[0]!;
    const input = JSON.parse(span.input as string);
    expect(input[0].big).toBe("10");
    expect(input[0].buf).toBe("[Buffer 5 bytes]");
    expect(input[0].map).toEqual({ k: 1 });
    expect(input[0].err.message).toBe("inner");
    expect(input[0].huge.length).toBeLessThan(70_000);
    expect(input[0].bad).toContain("getter threw");
    expect(input[0].nan).toBeNull();
    expect(input[0].nul).toBe("ab");
    expect(input[1].self).toBe("<circular>");
  });

  it("sets span and trace fields from anywhere inside, and ignores them outside", async () => {
    setup();
    updateCurrentSpan({ name: "nowhere" });
    updateCurrentTrace({ threadId: "nowhere" });
    let uuid = "";
    let spanUuid = "";
    const llm = observe({ type: "llm", model: "gpt-4o" }, async function generate(q: string) {
      spanUuid = currentSpanUuid()!;
      updateCurrentSpan({
        inputTokenCount: 12,
        outputTokenCount: 40,
        costPerInputToken: 0.000001,
        metadata: { temperature: 0 },
        llmTestCase: { input: q, actualOutput: "out" },
        metricCollection: "answers",
        embedder: "not-for-llm-spans",
      } as never);
      updateCurrentSpan({ inputTokenCount: -1 });
      return "out";
    });
    const agent = observe({ type: "agent", name: "bot", availableTools: ["search"] }, async (q: string) => {
      uuid = currentTraceUuid()!;
      updateCurrentTrace({ threadId: "conv-1", userId: "u-1", tags: ["beta"], metadata: { a: 1 }, name: "support" });
      updateCurrentTrace({ tags: ["two"], metadata: { b: 2 } });
      return llm(q);
    });
    await agent("where?");
    await flush();
    const t = trace(uuid);
    expect(t.fields).toMatchObject({ name: "support", threadId: "conv-1", userId: "u-1", tags: ["beta", "two"], metadata: { a: 1, b: 2 } });
    const span = t.spans.find((s) => s.uuid === spanUuid)!;
    expect(span).toMatchObject({
      type: "llm",
      name: "generate",
      model: "gpt-4o",
      inputTokenCount: 12,
      outputTokenCount: 40,
      metadata: { temperature: 0 },
      input: [{ role: "user", content: "where?" }],
      output: "out",
      metricCollection: "answers",
    });
    expect(span.embedder).toBeUndefined();
    expect(byName(t, "bot")).toMatchObject({ availableTools: ["search"], agentHandoffs: [] });
    expect(Object.values(dev.state.traces).some((x) => x.fields.threadId === "nowhere")).toBe(false);
  });

  it("keeps 1,000 concurrent interleaved traces apart", async () => {
    setup({ batch: { maxSpansPerRequest: 500 } });
    const inner = observe({ name: "inner" }, async (id: number) => {
      await new Promise((r) => setImmediate(r));
      updateCurrentSpan({ metadata: { id } });
      return id;
    });
    const outer = observe({ name: "outer" }, async (id: number) => {
      updateCurrentTrace({ metadata: { id } });
      await new Promise((r) => setImmediate(r));
      await Promise.all([inner(id), inner(id)]);
      return currentTraceUuid()!;
    });
    const before = Object.keys(dev.state.traces).length;
    const uuids = await Promise.all(Array.from({ length: 1000 }, (_, i) => outer(i)));
    expect(new Set(uuids).size).toBe(1000);
    expect((await flush()).ok).toBe(true);
    expect(Object.keys(dev.state.traces).length - before).toBe(1000);
    uuids.forEach((uuid, i) => {
      const t = trace(uuid);
      expect(t.fields.metadata).toEqual({ id: i });
      expect(t.spans).toHaveLength(3);
      const root = t.spans.find((s) => s.name === "outer")!;
      for (const s of t.spans.filter((x) => x.name === "inner")) {
        expect(s.metadata).toEqual({ id: i });
        expect(s.parentUuid).toBe(root.uuid);
      }
    });
    expect(stats()!.requests).toBeGreaterThanOrEqual(6);
  });

  it("samples whole traces", async () => {
    setup({ sampleRate: 0 });
    const child = observe({ name: "child" }, () => 1);
    const root = observe({ name: "sampled-out" }, () => {
      child();
      return currentTraceUuid();
    });
    expect(root()).toBeUndefined();
    await flush();
    expect(Object.values(dev.state.traces).some((t) => t.fields.name === "sampled-out")).toBe(false);

    setup({ sampleRate: 0.5 });
    const r2 = observe({ name: "half" }, () => child());
    for (let i = 0; i < 400; i++) r2();
    await flush();
    const kept = Object.values(dev.state.traces).filter((t) => t.fields.name === "half");
    expect(kept.length).toBeGreaterThan(120);
    expect(kept.length).toBeLessThan(280);
    for (const t of kept) expect(t.spans).toHaveLength(2);
  });

  it("masks every captured value before it leaves, and fails closed", async () => {
    setup({ mask: (v: unknown) => JSON.parse(JSON.stringify(v ?? null).replace(/\d{4}-\d{4}/g, "****")) });
    const f = observe({ name: "masked" }, (card: string) => {
      updateCurrentSpan({ metadata: { card } });
      updateCurrentTrace({ metadata: { card } });
      return `paid with ${card}`;
    });
    f("1234-5678");
    configureForTest(dev.url, dev.projectKey, {
      mask: () => {
        throw new Error("mask bug");
      },
    });
    const g = observe({ name: "mask-throws" }, (secret: string) => secret);
    g("1234-5678");
    await flush();
    const raw = JSON.stringify(Object.values(dev.state.traces).filter((t) => ["masked", "mask-throws"].includes(t.fields.name as string)));
    expect(raw).toContain("paid with ****");
    expect(raw).toContain("[mask failed]");
    expect(raw).not.toContain("1234-5678");
  });

  it("turns off cleanly without a key and warns once", async () => {
    const saved = process.env.EVALTRACE_API_KEY;
    delete process.env.EVALTRACE_API_KEY;
    try {
      const logger = configureForTest(dev.url, "");
      const f = observe({ name: "no-key" }, (x: number) => {
        updateCurrentSpan({ name: "x" });
        return currentTraceUuid() ?? x + 1;
      });
      expect(f(1)).toBe(2);
      configureForTest(dev.url, "");
      expect(f(2)).toBe(3);
      expect(logger.lines.filter((l) => l.includes("no API key"))).toHaveLength(1);
      expect(Object.values(dev.state.traces).some((t) => t.fields.name === "no-key")).toBe(false);
    } finally {
      if (saved !== undefined) process.env.EVALTRACE_API_KEY = saved;
    }
  });

  it("rejects bad observe options with a TypeError naming the option", () => {
    expect(() => observe({ type: "nope" } as never, () => 1)).toThrow(/`type` must be one of/);
    expect(() => configureForTest(dev.url, "k", { sampleRate: 2 })).toThrow(/sampleRate/);
  });
});

describe("the captured arguments of a call with several", () => {
  it("are the arguments as they were, and values the walk changes are changed the same way", async () => {
    setup({ serializeLimits: { maxStringChars: 8 } });
    const f = observe({ name: "args" }, (..._args: unknown[]) => currentTraceUuid()!);
    const cases: [unknown[], string][] = [
      [[1, "two", true, null], '[1,"two",true,null]'],
      [[Number.NaN, 1], "[null,1]"],
      [[undefined, 1], "[null,1]"],
      [["a\u0000b", 1], '["ab",1]'],
      [["123456789abc", 1], '["12345678...[truncated 4 chars]",1]'],
      [[{ k: 1 }, 2], '[{"k":1},2]'],
    ];
    const uuids = cases.map(([args]) => f(...args));
    await flush();
    const inputs = uuids.map((u) => byName(trace(u), "args").input);
    expect(inputs).toEqual(cases.map(([, text]) => text));
  });
});
