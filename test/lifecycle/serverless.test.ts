import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { deliver, observe, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await dev.close();
});

describe("serverless delivery", () => {
  it("delivers what a handler left running after its response, through waitUntil", async () => {
    const keptAlive: Promise<unknown>[] = []; // what the platform keeps the instance alive for
    const waitUntil = (p: Promise<unknown>) => keptAlive.push(p);
    let releaseBackground!: () => void;
    const gate = new Promise<void>((r) => {
      releaseBackground = r;
    });
    const audit = observe({ type: "tool", name: "audit-log" }, async (id: number) => {
      await gate;
      return `logged ${id}`;
    });
    const handler = observe({ name: "serverless-handler" }, async (id: number) => {
      void audit(id); // fire and forget, as handlers do
      return `response ${id}`;
    });
    const bgTraced = observe({ name: "background-job" }, async () => gate);

    const responses = [];
    for (let i = 0; i < 5; i++) {
      responses.push(await handler(i));
      void bgTraced();
      void deliver(waitUntil);
    }
    expect(responses).toEqual(["response 0", "response 1", "response 2", "response 3", "response 4"]);
    // The handlers have answered; their background work still runs.
    releaseBackground();
    const results = (await Promise.all(keptAlive)) as { ok: boolean }[];
    expect(results.every((r) => r.ok)).toBe(true);
    const stored = Object.values(dev.state.traces);
    const handlers = stored.filter((t) => t.fields.name === "serverless-handler");
    expect(handlers).toHaveLength(5);
    // The audit spans that ended after their trace's root arrived too (as late updates).
    for (const t of handlers) expect(t.spans.map((s) => s.name).sort()).toEqual(["audit-log", "serverless-handler"]);
    expect(stored.filter((t) => t.fields.name === "background-job")).toHaveLength(5);
  });

  it("resolves ok with nothing to deliver, and without a platform", async () => {
    expect(await deliver()).toMatchObject({ ok: true, notDelivered: [], pending: [] });
  });
});

describe("import", () => {
  it("does no work at import time: no timers, sockets, listeners or global registrations", () => {
    const probe = (load: string) => `
      const before = { resources: process.getActiveResourcesInfo(), listeners: ["beforeExit", "SIGTERM", "SIGINT"].map((e) => process.listenerCount(e)) };
      ${load}
      setImmediate(() => {
        const after = { resources: process.getActiveResourcesInfo(), listeners: ["beforeExit", "SIGTERM", "SIGINT"].map((e) => process.listenerCount(e)) };
        const otel = globalThis[Symbol.for("opentelemetry.js.api.1")];
        console.log(JSON.stringify({ before, after, registered: otel ? Object.keys(otel).filter((k) => k !== "version") : [] }));
      });`;
    for (const [flags, load] of [
      // What apps load: the SDK and its integration entry points (not the dev server, a tool).
      [["--input-type=module"], `await import("evaltrace"); await import("evaltrace/openai"); await import("evaltrace/openai-agents");`],
      [[], `require("evaltrace"); require("evaltrace/openai"); require("evaltrace/openai-agents");`],
    ] as const) {
      // A clean environment: the test runner's own variables must not decide what opens.
      const out = JSON.parse(execFileSync(process.execPath, [...flags, "-e", probe(load)], { cwd: root, encoding: "utf8", env: { PATH: process.env.PATH } }));
      expect(out.after).toEqual(out.before);
      expect(out.registered).toEqual([]);
    }
  });
});
