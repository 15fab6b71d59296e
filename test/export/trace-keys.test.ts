import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, evaluateTrace, flush, observe, shutdown, stats, updateCurrentTrace } from "../../src/index.js";
import { groupByKey } from "../../src/http/keyed-transport.js";
import { configureForTest } from "../helpers/sdk.js";
import { startKeyProxy } from "./key-proxy.js";

let dev: DevServer;
let proxy: Awaited<ReturnType<typeof startKeyProxy>>;
let tenantKey: string;
let logger: ReturnType<typeof configureForTest>;

beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  proxy = await startKeyProxy(dev.url);
  // A second project's key, as a multi-tenant app holds one per tenant.
  tenantKey = dev.createApiKey({ scope: "project", name: "tenant b" }).value;
});
beforeEach(() => {
  // Batches wait for flush(): every test sees what one batch of mixed keys becomes.
  logger = configureForTest(proxy.url, dev.projectKey, { batch: { flushIntervalMillis: 60_000 } });
  proxy.seen.length = 0;
});
afterAll(async () => {
  await shutdown(0);
  await proxy.close();
  await dev.close();
});

/** Runs a root span with these options and returns its trace uuid. */
async function traceWith(options: { apiKey?: unknown }, body?: () => void): Promise<string> {
  let uuid = "";
  await observe({ name: "turn", ...(options as { apiKey?: string }) }, async () => {
    uuid = currentTraceUuid()!;
    body?.();
  })();
  return uuid;
}

const postsOf = (uuid: string) => proxy.seen.filter((r) => r.method === "POST" && r.traces.includes(uuid));

describe("per-trace API keys", () => {
  it("routes each trace to its key, one list-form POST per key, never mixed", async () => {
    const a = await traceWith({});
    const b1 = await traceWith({ apiKey: tenantKey });
    const c = await traceWith({});
    const b2 = await traceWith({}, () => updateCurrentTrace({ apiKey: tenantKey }));
    expect((await flush()).ok).toBe(true);
    const posts = proxy.seen.filter((r) => r.method === "POST" && r.url === "/v1/traces");
    // A batch builder may cut a batch short to spare the event loop; whatever the cut, each
    // request holds the traces of one key only, and a batch of both keys is one POST per key.
    for (const p of posts) expect(p.status).toBe(200);
    const byKey = (key: string) => posts.filter((p) => p.key === key).flatMap((p) => p.traces).sort();
    expect(byKey(dev.projectKey)).toEqual([a, c].sort());
    expect(byKey(tenantKey)).toEqual([b1, b2].sort());
    for (const uuid of [a, b1, c, b2]) {
      expect(postsOf(uuid)).toHaveLength(1);
      expect(dev.state.traces[uuid]).toBeDefined();
    }
  });

  it("a batch of several keys becomes one group per key, in order", () => {
    const t = (uuid: string, apiKey?: string) => ({ uuid, rec: { apiKey } });
    const groups = groupByKey([t("a"), t("b1", "B"), t("c"), t("x", "X"), t("b2", "B")]);
    expect(groups.map((g) => g.map((p) => p.uuid))).toEqual([["a", "c"], ["b1", "b2"], ["x"]]);
  });

  it("sends the late updates and the offline evaluation of a routed trace with its key", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let late: Promise<void> | undefined;
    const uuid = await traceWith({ apiKey: tenantKey }, () => {
      // Work left running after the root returned: its span is a late update (PUT).
      late = observe({ name: "background" }, async () => {
        await gate;
      })();
    });
    expect((await flush()).ok).toBe(true);
    release();
    await late;
    const outcome = await evaluateTrace(uuid, { metricCollection: "Default Single-Turn" });
    expect((await flush()).ok).toBe(true);
    const put = proxy.seen.filter((r) => r.method === "PUT" && r.url.includes(uuid));
    expect(put.length).toBeGreaterThan(0);
    for (const r of put) expect(r.key).toBe(tenantKey);
    expect(dev.state.traces[uuid]!.spans.map((s) => s.name).sort()).toEqual(["background", "turn"]);
    const evals = proxy.seen.filter((r) => r.url.startsWith("/v1/evaluate/traces/"));
    expect(evals).toHaveLength(1);
    expect(evals[0]!.key).toBe(tenantKey);
    expect(outcome.status).not.toBe("deferred");
  });

  it("a trace routed to a key and back to the configured one sends its late update and its evaluation with the configured key", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let late: Promise<void> | undefined;
    const uuid = await traceWith({ apiKey: tenantKey }, () => {
      updateCurrentTrace({ apiKey: dev.projectKey });
      late = observe({ name: "background" }, async () => {
        await gate;
      })();
    });
    expect((await flush()).ok).toBe(true);
    release();
    await late;
    await evaluateTrace(uuid, { metricCollection: "Default Single-Turn" });
    expect((await flush()).ok).toBe(true);
    const sent = proxy.seen.filter((r) => r.traces.includes(uuid) || r.url.includes(uuid));
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const r of sent) expect(r.key).toBe(dev.projectKey);
    expect(dev.state.traces[uuid]!.spans.map((s) => s.name).sort()).toEqual(["background", "turn"]);
  });

  it("a key the service refuses (401) fails its own traces only, and no key reaches the log", async () => {
    const badKey = "svc_local_proj_not-a-real-key-0123456789";
    const good = await traceWith({ apiKey: tenantKey });
    const bad1 = await traceWith({ apiKey: badKey });
    const bad2 = await traceWith({ apiKey: badKey });
    const plain = await traceWith({});
    const result = await flush();
    expect(result.notDelivered.sort()).toEqual([bad1, bad2].sort());
    expect(dev.state.traces[good]).toBeDefined();
    expect(dev.state.traces[plain]).toBeDefined();
    expect(dev.state.traces[bad1]).toBeUndefined();
    // Refused for its key: not split and re-sent trace by trace.
    expect(proxy.seen.filter((r) => r.key === badKey)).toHaveLength(1);
    expect(stats().tracesFailed).toBe(2);
    expect(logger.lines.some((l) => l.includes("401"))).toBe(true);
    const log = logger.lines.join("\n");
    for (const key of [badKey, tenantKey, dev.projectKey]) expect(log).not.toContain(key);
  });

  it("a key that is not a string, empty or with a line break: a warning (without it), the trace goes to the configured key", async () => {
    const hostile: unknown[] = [42, "", "svc_bad\nkey", { toString: () => tenantKey }];
    const uuids: string[] = [];
    for (const apiKey of hostile) uuids.push(await traceWith({ apiKey }));
    expect((await flush()).ok).toBe(true);
    for (const uuid of uuids) expect(postsOf(uuid)[0]!.key).toBe(dev.projectKey);
    const warnings = logger.lines.filter((l) => l.includes("apiKey"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("the trace goes to the configured key");
    expect(logger.lines.join("\n")).not.toContain("svc_bad");
  });

  it("apiKey on a nested span is ignored with one warning; after the trace was sent it is too late", async () => {
    let background: Promise<void> | undefined;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const uuid = await traceWith({}, () => {
      observe({ name: "nested", apiKey: tenantKey }, () => {})();
      background = observe({ name: "later" }, async () => {
        await gate;
        updateCurrentTrace({ apiKey: tenantKey });
      })();
    });
    expect((await flush()).ok).toBe(true);
    release();
    await background;
    expect((await flush()).ok).toBe(true);
    expect(proxy.seen.filter((r) => r.url.includes(uuid) || r.traces.includes(uuid)).every((r) => r.key === dev.projectKey)).toBe(true);
    expect(logger.lines.filter((l) => l.includes("apiKey applies on a trace's root span only"))).toHaveLength(1);
    expect(logger.lines.filter((l) => l.includes("apiKey set after the trace was sent"))).toHaveLength(1);
    expect(logger.lines.join("\n")).not.toContain(tenantKey);
  });
});
