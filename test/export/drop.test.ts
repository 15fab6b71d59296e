import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTrace, currentTraceUuid, evaluateTrace, flush, observe, shutdown, stats, updateCurrentTrace } from "../../src/index.js";
import { formats, load, runChild } from "../helpers/child.js";
import { configureForTest } from "../helpers/sdk.js";
import { startKeyProxy } from "./key-proxy.js";

let dev: DevServer;
let proxy: Awaited<ReturnType<typeof startKeyProxy>>;
let logger: ReturnType<typeof configureForTest>;

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  proxy = await startKeyProxy(dev.url);
});
beforeEach(() => {
  logger = configureForTest(proxy.url, dev.projectKey, { batch: { flushIntervalMillis: 60_000 } });
  proxy.seen.length = 0;
});
afterAll(async () => {
  await shutdown(0);
  await proxy.close();
  await dev.close();
});

/** A promise and the function that settles it: work the test lets finish when it chooses. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => {
    open = r;
  });
  return { done, open };
}

/** Whether any request named this trace (its POST, a PUT, an evaluation). */
const mentioned = (uuid: string) => proxy.seen.some((r) => r.traces.includes(uuid) || r.url.includes(uuid));

describe("updateCurrentTrace({ drop: true })", () => {
  it("sends nothing of the trace, spans that end after the drop included; counted", async () => {
    const later = gate();
    let background: Promise<void> | undefined;
    let dropped = "";
    await observe({ name: "root" }, async () => {
      dropped = currentTraceUuid()!;
      await observe({ name: "done before" }, async () => {})();
      // Left running past the root: it would be a late update (PUT).
      background = observe({ name: "left running" }, async () => {
        await later.done;
        await observe({ name: "started after the drop" }, async () => {})();
      })();
      updateCurrentTrace({ drop: true });
      updateCurrentTrace({ drop: true }); // twice: no-op
      currentTrace()!.drop(); // the handle too
    })();
    const kept = await observe({ name: "kept" }, async () => currentTraceUuid()!)();
    expect((await flush()).ok).toBe(true);
    later.open();
    await background;
    const result = await flush();
    expect(result.ok).toBe(true);
    expect(result.notDelivered).toEqual([]);
    expect(mentioned(dropped)).toBe(false);
    expect(dev.state.traces[dropped]).toBeUndefined();
    expect(dev.state.traces[kept]).toBeDefined();
    // An offline evaluation of it is refused at once, without a request.
    expect(await evaluateTrace(dropped, { metricCollection: "Default Single-Turn" })).toMatchObject({ status: "failed", error: expect.stringContaining("dropped") });
    expect(mentioned(dropped)).toBe(false);
    const s = stats();
    expect(s.tracesDiscarded).toBe(1);
    // root and "left running" ended after the drop, and the span started later.
    expect(s.spansDiscarded).toBe(3);
    expect(s.tracesFailed).toBe(0);
    expect(s.openTraces).toBe(0);
    expect(logger.lines.filter((l) => l.startsWith("warn"))).toEqual([]);
  });

  it("drops a trace whose root ended but that is still waiting for its batch", async () => {
    const later = gate();
    let background: Promise<void> | undefined;
    const uuid = await observe({ name: "root" }, async () => {
      background = observe({ name: "background" }, async () => {
        await later.done;
        updateCurrentTrace({ drop: true });
      })();
      return currentTraceUuid()!;
    })();
    // The root ended: the trace is queued (the batch waits for flush).
    later.open();
    await background;
    expect((await flush()).ok).toBe(true);
    expect(mentioned(uuid)).toBe(false);
    expect(stats().tracesDiscarded).toBe(1);
    expect(stats().queued).toBe(0);
  });

  it("after the trace was sent: what went out stays, nothing more is sent, one warning", async () => {
    const later = gate();
    let background: Promise<void> | undefined;
    const uuid = await observe({ name: "root" }, async () => {
      background = observe({ name: "background" }, async () => {
        await later.done;
        updateCurrentTrace({ drop: true });
        updateCurrentTrace({ drop: true, output: "ignored" });
        await observe({ name: "after drop" }, async () => {})();
      })();
      return currentTraceUuid()!;
    })();
    expect((await flush()).ok).toBe(true);
    expect(dev.state.traces[uuid]!.spans.map((s) => s.name)).toEqual(["root"]);
    later.open();
    await background;
    expect((await flush()).ok).toBe(true);
    expect(proxy.seen.filter((r) => r.method === "PUT")).toEqual([]);
    expect(dev.state.traces[uuid]!.spans.map((s) => s.name)).toEqual(["root"]);
    expect(logger.lines.filter((l) => l.includes("dropped after it was sent"))).toHaveLength(1);
    // Not a whole trace dropped: not counted as one.
    expect(stats().tracesDiscarded).toBe(0);
  });

  it("drop with a value that is not a boolean is ignored with one warning; outside a span nothing happens", async () => {
    expect(() => updateCurrentTrace({ drop: "yes" as unknown as boolean })).not.toThrow();
    const uuid = await observe({ name: "root" }, async () => {
      updateCurrentTrace({ drop: "yes" as unknown as boolean });
      updateCurrentTrace({ drop: 1 as unknown as boolean });
      updateCurrentTrace({ drop: false });
      return currentTraceUuid()!;
    })();
    expect((await flush()).ok).toBe(true);
    expect(dev.state.traces[uuid]).toBeDefined();
    expect(logger.lines.filter((l) => l.includes("drop must be true or false"))).toHaveLength(1);
  });
});

describe.each(formats)("a dropped trace in a child process (%s)", (format) => {
  it("sends nothing of it before exit; the kept one goes out", async () => {
    const child = runChild(
      format,
      `${load(format, "evaltrace", ["configure", "observe", "updateCurrentTrace", "currentTraceUuid", "stats"])}
configure({ apiKey: process.env.KEY, baseUrl: process.env.URL });
const dropped = await observe({ name: "dropped" }, async () => {
  setTimeout(observe({ name: "late" }, () => {}), 20);
  updateCurrentTrace({ drop: true });
  return currentTraceUuid();
})();
const kept = await observe({ name: "kept" }, async () => currentTraceUuid())();
await new Promise((r) => setTimeout(r, 50));
console.log(JSON.stringify({ dropped, kept, discarded: stats().tracesDiscarded }));`,
      { KEY: dev.projectKey, URL: proxy.url },
    );
    const out = await child.finished;
    expect(out.code, out.stderr).toBe(0);
    const { dropped, kept, discarded } = JSON.parse(out.stdout.trim()) as { dropped: string; kept: string; discarded: number };
    expect(discarded).toBe(1);
    // The exit hook delivered the kept trace, and nothing of the dropped one.
    expect(dev.state.traces[kept]).toBeDefined();
    expect(mentioned(dropped)).toBe(false);
    expect(dev.state.traces[dropped]).toBeUndefined();
  });
});
