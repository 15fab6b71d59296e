import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flush, observe } from "../../../src/index.js";
import { hrTimeToIso } from "../../../src/spans/time.js";
import { nothingLeftOpen, startBridge, traceNamed } from "./bridge.js";

// Instrumentations with a clock of whole milliseconds (OpenInference's LangChain tracer takes
// LangChain's run.start_time, Date.now()) say their span started up to a millisecond before its
// parent, ours, which the service refuses (spec 4.6 rule 4). Sent as starting with its parent,
// in the trace and in a late update; the span itself is left as the instrumentation made it.
let bridge: Awaited<ReturnType<typeof startBridge>>;
beforeAll(async () => {
  bridge = await startBridge();
});
afterAll(() => bridge.close());

const tracer = () => trace.getTracer("ms-clock");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a span of another instrumentation that says it started before its parent", () => {
  for (const when of ["ended inside its parent (sent with the trace)", "ended after its trace was sent (a late update)"] as const) {
    it(`is sent starting with its parent: ${when}`, async () => {
      const name = `floor-${when.startsWith("ended inside") ? "in" : "late"}`;
      let child: { startTime: [number, number]; endTime: [number, number] } | undefined;
      const done: Promise<void>[] = [];
      const agent = observe({ type: "agent", name }, async () => {
        // Whole milliseconds, the one before the agent's own start (read from its span, so that
        // however long the agent took to get here, the child says it started before it).
        const [sec, nanos] = (trace.getActiveSpan() as unknown as { startTime: [number, number] }).startTime;
        const parentMs = Math.floor(sec * 1000 + nanos / 1e6);
        const span = tracer().startSpan("ms-clock child", { startTime: parentMs - 1, attributes: { "openinference.span.kind": "RETRIEVER", "input.value": "q" } });
        child = span as never;
        const end = async () => {
          if (when.startsWith("ended after")) await sleep(50);
          span.end(Math.floor(Date.now()) - 2);
        };
        done.push(end());
        if (when.startsWith("ended inside")) await done[0];
        return "ok";
      });
      expect(await agent()).toBe("ok");
      await Promise.all(done);
      expect(await flush()).toMatchObject({ ok: true, notDelivered: [], pending: [] });
      const t = traceNamed(bridge.dev, name);
      const root = t.spans.find((s) => s.name === name)!;
      const sent = t.spans.find((s) => s.name === "ms-clock child")!;
      expect(sent.parentUuid).toBe(root.uuid);
      expect(sent.startTime).toBe(root.startTime);
      expect(sent.endTime >= sent.startTime).toBe(true);
      // The instrumentation's span keeps its own times.
      expect(hrTimeToIso(child!.startTime) < root.startTime).toBe(true);
      expect(nothingLeftOpen()).toBe(true);
    });
  }
});
