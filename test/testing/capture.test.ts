import { describe, expect, it } from "vitest";
import { configure, observe, updateCurrentSpan } from "../../src/index.js";
import { type CapturedTrace, captureTraces, matchers } from "../../src/testing/index.js";
import { memoryLogger } from "../helpers/sdk.js";

expect.extend(matchers);

// No API key anywhere: a capture records all the same.
const logger = memoryLogger();
configure({ registerExitHooks: false, logger });

const lookup = observe({ type: "tool", name: "lookup_order" }, async (id: string) => {
  if (id === "missing") throw new Error(`no such order: ${id}`);
  return { id, status: "shipped" };
});
const answer = observe({ type: "llm", name: "chat", model: "gpt-4o-mini" }, async (question: string) => {
  updateCurrentSpan({ inputTokenCount: 12, outputTokenCount: 5 });
  return `About ${question}: in 2 days.`;
});
const agent = observe({ type: "agent", name: "support" }, async (question: string, orderId = "A1") => {
  await lookup(orderId).catch(() => undefined);
  return answer(question);
});

describe("captureTraces with observe() spans", () => {
  it("captures a trace as a span tree with typed fields, with no API key configured, warning of nothing", async () => {
    expect(logger.lines.some((l) => l.includes("no API key"))).toBe(true);
    logger.lines.length = 0;
    const capture = captureTraces();
    await agent("shipping");
    capture.stop();
    const [trace] = capture.traces();
    expect(capture.traces()).toHaveLength(1);
    expect(trace!.root).toMatchObject({ type: "agent", name: "support", status: "SUCCESS", input: "shipping", output: "About shipping: in 2 days." });
    expect(trace!.root!.children.map((s) => [s.type, s.name])).toEqual([
      ["tool", "lookup_order"],
      ["llm", "chat"],
    ]);
    expect(trace!.root!.children[1]).toMatchObject({ model: "gpt-4o-mini", inputTokenCount: 12, outputTokenCount: 5, parentUuid: trace!.root!.uuid });
    expect(trace!.spans).toHaveLength(3);
    expect(logger.lines.filter((l) => l.startsWith("warn"))).toEqual([]);
  });

  it("toHaveSpan matches type, name, input and output partially, and parents", async () => {
    const capture = captureTraces();
    await agent("refunds");
    capture.stop();
    expect(capture).toHaveSpan({ type: "tool", name: "lookup_order", output: { status: "shipped" } });
    expect(capture).toHaveSpan({ type: "llm", name: /ch/, output: expect.stringContaining("2 days"), parent: { name: "support" } });
    expect(capture).toHaveChildSpan({ type: "agent" }, { type: "tool", input: "A1" });
    expect(capture).toHaveSpansInOrder([{ type: "agent" }, { name: "lookup_order" }, { name: "chat" }]);
    expect(capture).toHaveSpanCount({}, 3);
    expect(capture).toHaveSpanCount({ type: "llm" }, 1);
    expect(capture).toHaveNoErroredSpans();
    expect(capture.traces()[0]).toHaveSpan({ attributes: { model: "gpt-4o-mini" } });
  });

  it("negated matchers pass when nothing matches and fail when something does", async () => {
    const capture = captureTraces();
    await agent("refunds");
    capture.stop();
    expect(capture).not.toHaveSpan({ type: "retriever" });
    expect(capture).not.toHaveSpan({ name: "chat", parent: { name: "lookup_order" } });
    expect(capture).not.toHaveChildSpan({ type: "tool" }, { type: "llm" });
    expect(capture).not.toHaveSpansInOrder([{ name: "chat" }, { name: "lookup_order" }]);
    expect(capture).not.toHaveSpanCount({ type: "tool" }, 2);
    expect(() => expect(capture).not.toHaveSpan({ type: "tool" })).toThrow(/Expected no span matching/);
    expect(() => expect(capture).not.toHaveNoErroredSpans()).toThrow(/Expected an errored span, found none/);
  });

  it("a failure's message shows the captured tree, the nearest span and what differs", async () => {
    const capture = captureTraces();
    await agent("refunds", "missing");
    capture.stop();
    let message = "";
    try {
      expect(capture).toHaveSpan({ type: "llm", model: "gpt-4o" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("Expected a span matching");
    expect(message).toContain('Nearest: llm "chat" model=gpt-4o-mini tokens=12/5');
    expect(message).toContain('differs in model: "gpt-4o-mini"');
    expect(message).toContain('trace "support" SUCCESS (3 spans)');
    expect(message).toMatch(/└─ agent "support" in=\["refunds","missing"\]/);
    expect(message).toContain('   ├─ tool "lookup_order" ERRORED error="no such order: missing"');
    expect(message).toContain('   └─ llm "chat" model=gpt-4o-mini tokens=12/5 out="About refunds: in 2 days."');
    expect(() => expect(capture).toHaveNoErroredSpans()).toThrow(/Expected no errored span, found 1:\n {2}- tool "lookup_order" ERRORED error="no such order: missing"/);
    expect(() => expect(capture).toHaveSpansInOrder([{ name: "chat" }, { name: "lookup_order" }])).toThrow(/2\. .*✗ no span after the one above matches/);
    expect(() => expect(capture).toHaveSpanCount({ type: "tool" }, 2)).toThrow(/Expected 2 span\(s\) matching .*, found 1/);
  });

  it("an empty capture says that nothing was captured", () => {
    const capture = captureTraces();
    capture.stop();
    expect(() => expect(capture).toHaveSpan({ type: "llm" })).toThrow(/nothing was captured/);
    expect(capture).not.toHaveSpan({});
  });

  it("a query that is not one, or expect() given something else, is a TypeError naming it", () => {
    const capture = captureTraces();
    capture.stop();
    expect(() => expect(capture).toHaveSpan({ kind: "llm" } as never)).toThrow(/unknown span query field "kind"/);
    expect(() => expect(capture).toHaveSpanCount({}, -1)).toThrow(/non-negative integer/);
    expect(() => expect("traces").toHaveSpan({})).toThrow(/expect\(\) must be given a capture from captureTraces\(\)/);
    expect(() => captureTraces({ maxTraces: 0 })).toThrow(/maxTraces must be a positive integer/);
  });

  it("traces that start after stop() are not captured, and what was captured stays readable", async () => {
    const capture = captureTraces();
    await agent("one");
    capture.stop();
    await agent("two");
    expect(capture.traces().map((t) => t.input)).toEqual(["one"]);
    expect(capture.active).toBe(false);
    capture.clear();
    expect(capture.traces()).toEqual([]);
  });

  it("a capture holds at most maxTraces traces, counts the others and warns once", async () => {
    const capture = captureTraces({ maxTraces: 1 });
    await agent("one");
    await agent("two");
    await agent("three");
    capture.stop();
    expect(capture.traces().map((t) => t.input)).toEqual(["one"]);
    expect(capture.droppedTraces).toBe(2);
    expect(logger.lines.filter((l) => l.includes("more than 1 traces (maxTraces)"))).toHaveLength(1);
  });

  it("nested captures: the inner one takes the traces started while it runs, the outer one takes them again after it stops", async () => {
    const outer = captureTraces();
    await agent("before");
    const inner = captureTraces();
    await agent("inside");
    inner.stop();
    await agent("after");
    outer.stop();
    expect(inner.traces().map((t) => t.input)).toEqual(["inside"]);
    expect(outer.traces().map((t) => t.input)).toEqual(["before", "after"]);
  });

  it("parallel captures in separate async contexts each get only their own traces", async () => {
    const run = async (question: string, times: number): Promise<CapturedTrace[]> => {
      const capture = captureTraces();
      for (let i = 0; i < times; i++) {
        await new Promise((r) => setTimeout(r, 1));
        await agent(question);
      }
      capture.stop();
      return capture.traces();
    };
    const [a, b] = await Promise.all([run("a", 3), run("b", 2)]);
    expect(a.map((t) => t.input)).toEqual(["a", "a", "a"]);
    expect(b.map((t) => t.input)).toEqual(["b", "b"]);
  });

  it("a trace started where no capture was made goes to every running capture", async () => {
    // A timer set before the captures: its callback runs in no capture's context.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const later = gate.then(() => agent("from elsewhere"));
    const first = captureTraces();
    const second = await (async () => captureTraces())();
    release();
    await later;
    first.stop();
    second.stop();
    expect(first.traces().map((t) => t.input)).toEqual(["from elsewhere"]);
    expect(second.traces().map((t) => t.input)).toEqual(["from elsewhere"]);
  });
});
