// Our spans are not the OTel SDK's: what an app or another instrumentation does with the active
// span (trace.getActiveSpan()) must behave as on an SDK span, and never throw.
import { context, type Exception, type Span, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { suppressTracing } from "@opentelemetry/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, EvaltraceSpanProcessor, flush, observe, shutdown } from "../../src/index.js";
import { ObservedSpan } from "../../src/spans/observed-span.js";
import { startObservedSpan } from "../../src/spans/observed-tracer.js";
import { newSpanId, newTraceId } from "../../src/spans/random-ids.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0, strict: true });
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown();
  await dev.close();
});

/** A span on its own, its end reported to `ended`. */
function lone(ended: ObservedSpan[] = []) {
  const frozen = Object.freeze({ "evaltrace.span.type": "base" });
  const ctx = { traceId: newTraceId(), spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED };
  return new ObservedSpan("s", ctx, undefined, [100, 500], frozen, { onEnd: (s) => ended.push(s as ObservedSpan) });
}

describe("an observed span, as an app or another instrumentation uses it", () => {
  it("takes attributes, events, links and a new name while open (the shared type attribute copied, never written)", () => {
    const span = lone();
    const shared = span.attributes;
    span.setAttribute("a", 1).setAttributes({ b: "x", c: [1, 2] });
    span.setAttribute("", 1).setAttribute("d", undefined).setAttribute("e", { no: 1 } as never);
    expect(span.attributes).toEqual({ "evaltrace.span.type": "base", a: 1, b: "x", c: [1, 2] });
    expect(shared).toEqual({ "evaltrace.span.type": "base" });
    span.addEvent("e1", { k: "v" }, [101, 0]).addEvent("e2", [102, 0]);
    expect(span.events.map((e) => [e.name, e.time, e.attributes])).toEqual([
      ["e1", [101, 0], { k: "v" }],
      ["e2", [102, 0], {}],
    ]);
    span.addLinks([{ context: span.spanContext() }]);
    expect(span.links).toHaveLength(1);
    span.updateName("renamed");
    expect(span.name).toBe("renamed");
  });

  it("ignores setAttributes(undefined or null), as the SDK's span does", () => {
    const span = lone();
    expect(() => span.setAttributes(undefined as never).setAttributes(null as never)).not.toThrow();
    expect(span.attributes).toEqual({ "evaltrace.span.type": "base" });
  });

  it("stays bounded by the SDK's default limits: 128 attributes (existing ones still written), 128 links, the last 128 events", () => {
    const span = lone();
    for (let i = 0; i < 1000; i++) span.setAttribute(`k${i}`, i).addEvent(`e${i}`).addLink({ context: span.spanContext() });
    span.setAttribute("evaltrace.span.type", "changed");
    expect(Object.keys(span.attributes)).toHaveLength(128);
    expect(span.attributes["evaltrace.span.type"]).toBe("changed");
    expect(span.links).toHaveLength(128);
    expect(span.events).toHaveLength(128);
    expect(span.events[127]!.name).toBe("e999");
  });

  it("counts what its limits dropped, as the SDK's span does: droppedAttributesCount, droppedEventsCount, droppedLinksCount (0 while nothing was)", () => {
    const span = lone();
    expect([span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]).toEqual([0, 0, 0]);
    // 127 new attributes fit beside the type attribute; 1000 events and links keep 128 each.
    for (let i = 0; i < 1000; i++) span.setAttribute(`k${i}`, i).addEvent(`e${i}`).addLink({ context: span.spanContext() });
    span.setAttribute("k0", "rewritten");
    expect([span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]).toEqual([1000 - 127, 1000 - 128, 1000 - 128]);
  });

  it("keeps the SDK's status rules: UNSET changes nothing, OK is final, a message only on ERROR", () => {
    const span = lone();
    span.setStatus({ code: SpanStatusCode.UNSET });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    span.setStatus({ code: SpanStatusCode.ERROR, message: 42 as never });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    span.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "boom" });
    span.setStatus({ code: SpanStatusCode.OK, message: "ignored" });
    span.setStatus({ code: SpanStatusCode.ERROR, message: "after ok" });
    expect(span.status).toEqual({ code: SpanStatusCode.OK });
  });

  it("records an exception as the SDK does", () => {
    const span = lone();
    const err = Object.assign(new TypeError("bad"), { code: 7 });
    span.recordException(err, [103, 0]);
    span.recordException("plain");
    expect(span.events[0]).toMatchObject({ name: "exception", time: [103, 0], attributes: { "exception.type": "7", "exception.message": "bad" } });
    expect(span.events[0]!.attributes!["exception.stacktrace"]).toContain("TypeError");
    expect(span.events[1]!.attributes).toEqual({ "exception.message": "plain" });
  });

  it("records what the SDK's span records of any exception, and nothing of one it cannot read", () => {
    const sdkTracer = new BasicTracerProvider().getTracer("compare");
    const hostile = Object.defineProperty({}, "message", {
      get() {
        throw new Error("getter");
      },
    });
    const cases: unknown[] = [
      new TypeError("bad"),
      Object.assign(new Error("m"), { code: 0 }),
      Object.assign(new Error("m"), { code: "E_X" }),
      { code: 7 },
      { name: "OnlyName" },
      { message: "only message" },
      { stack: "only a stack" },
      {},
      { message: "" },
      "",
      "plain",
      null,
      undefined,
    ];
    for (const exception of cases) {
      const ours = lone();
      const theirs = sdkTracer.startSpan("s");
      ours.recordException(exception as Exception, [103, 0]);
      theirs.recordException(exception as Exception, [103, 0]);
      const events = (theirs as unknown as { events: { name: string; attributes?: object }[] }).events;
      expect(ours.events.map((e) => [e.name, e.attributes]), String(exception)).toEqual(events.map((e) => [e.name, e.attributes]));
    }
    const span = lone();
    expect(() => span.recordException(hostile as Exception)).not.toThrow();
    expect(span.events).toHaveLength(0);
  });

  it("ends once, never before its start, then ignores every change", () => {
    const ended: ObservedSpan[] = [];
    const span = lone(ended);
    expect(span.isRecording()).toBe(true);
    expect(span.duration).toEqual([-1, -1]);
    span.end([99, 0]);
    span.end([200, 0]);
    expect(ended).toEqual([span]);
    expect(span.endTime).toEqual([100, 500]);
    expect(span.duration).toEqual([0, 0]);
    expect(span.isRecording()).toBe(false);
    span.setAttribute("late", 1).addEvent("late").updateName("late").setStatus({ code: SpanStatusCode.ERROR });
    expect(span.name).toBe("s");
    expect(span.attributes.late).toBeUndefined();
    expect(span.events).toHaveLength(0);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("reads an end time given as a Date, epoch milliseconds or a performance timestamp", () => {
    const at = (time: Date | number) => {
      const span = lone();
      span.end(time);
      return span.endTime[0] + span.endTime[1] / 1e9;
    };
    const now = Date.now() / 1000;
    expect(at(new Date(Date.now()))).toBeCloseTo(now, 0);
    expect(at(Date.now())).toBeCloseTo(now, 0);
    expect(at(performance.now())).toBeCloseTo(now, 0);
  });

  it("keeps its own copy of an end time the app passed as an array (the app may reuse it; the span is sent later)", () => {
    const span = lone();
    const time: [number, number] = [200, 5];
    span.end(time);
    time[0] = 1;
    time[1] = 2;
    expect(span.endTime).toEqual([200, 5]);
  });

  it("makes valid random ids", () => {
    const ids = new Set(Array.from({ length: 10_000 }, newSpanId));
    expect(ids.size).toBe(10_000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("opening an observed span", () => {
  const source = (admit: boolean) => {
    const started: Span[] = [];
    return { started, onStart: (s: Span) => started.push(s), onEnd: () => {}, admitRoot: () => admit };
  };

  it("a root is recorded when admitted, else carries ids without recording; a child follows its parent's sampled flag", () => {
    const yes = source(true);
    const root = startObservedSpan("root", [1, 0], {}, context.active(), yes);
    expect(root.isRecording()).toBe(true);
    expect(yes.started).toEqual([root]);
    const child = startObservedSpan("child", [1, 1], {}, trace.setSpan(context.active(), root), source(false));
    expect(child.isRecording()).toBe(true);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect((child as ObservedSpan).parentSpanContext).toBe(root.spanContext());

    const no = source(false);
    const refused = startObservedSpan("root", [1, 0], {}, context.active(), no);
    expect(refused.isRecording()).toBe(false);
    expect(no.started).toEqual([]);
    expect(trace.isSpanContextValid(refused.spanContext())).toBe(true);
    const under = startObservedSpan("child", [1, 1], {}, trace.setSpan(context.active(), refused), source(true));
    expect(under.isRecording()).toBe(false);
    expect(under.spanContext().traceId).toBe(refused.spanContext().traceId);
  });

  it("a context that suppresses tracing (an exporter's own request) gets a non-recording span", () => {
    const yes = source(true);
    const span = startObservedSpan("x", [1, 0], {}, suppressTracing(context.active()), yes);
    expect(span.isRecording()).toBe(false);
    expect(yes.started).toEqual([]);
  });
});

it("an app writing to the active span inside observe() (shared attributes, status, an exception) throws nothing and the trace is stored", async () => {
  // With a bridge, observed spans are OTel's active span (otelContext "shared").
  new EvaltraceSpanProcessor();
  let uuid: string | undefined;
  const seen: boolean[] = [];
  const inner = observe({ name: "inner" }, () => {
    const active = trace.getActiveSpan();
    seen.push(active instanceof ObservedSpan);
    active?.setAttribute("app.key", "v");
    active?.recordException(new Error("noted"));
    active?.setStatus({ code: SpanStatusCode.OK });
    return 1;
  });
  const outer = observe({ name: "outer", type: "agent" }, () => {
    uuid = currentTraceUuid();
    return inner() + inner();
  });
  expect(outer()).toBe(2);
  expect(seen).toEqual([true, true]);
  expect((await flush()).ok).toBe(true);
  const stored = dev.state.traces[uuid!]!;
  expect(stored.spans.map((s) => s.name).sort()).toEqual(["inner", "inner", "outer"]);
});
