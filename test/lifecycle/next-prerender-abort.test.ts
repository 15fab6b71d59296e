import { AsyncLocalStorage } from "node:async_hooks";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, deliver, observe, shutdown, stats } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";

// Issue 49 point 6: with Cache Components, Next prerenders a server component that calls a model
// without `await connection()` and aborts the call once the prerender is complete; the model
// never received it. Next keeps the render's work unit in an AsyncLocalStorage on globalThis
// (next/dist/server/app-render/async-local-storage.js, getOrCreateGlobalAsyncLocalStorage): the
// same key and store shape here, as Next 16.5 makes them.
const workUnits = new AsyncLocalStorage<{ type: string; renderSignal: AbortSignal }>();
(globalThis as Record<symbol, unknown>)[Symbol.for("@next/work-unit-async-storage@16.5.0")] = workUnits;

let dev: DevServer;
let fake: FakeOpenAI;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

/** A page's agent whose model call is aborted (as Next aborts a prerender's requests); the trace uuid. */
async function abortedCall(): Promise<string> {
  const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
  let uuid = "";
  const page = observe({ type: "agent", name: "page-agent" }, async () => {
    uuid = currentTraceUuid()!;
    const controller = new AbortController();
    controller.abort();
    return openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "prerendered" }] }, { signal: controller.signal });
  });
  await page().catch(() => undefined);
  return uuid;
}

it("a model call that fails inside a completed Next prerender: its trace is dropped, counted, nothing logged above debug", async () => {
  const log = configureForTest(dev.url, dev.projectKey);
  const done = new AbortController();
  done.abort();
  const uuid = await workUnits.run({ type: "prerender", renderSignal: done.signal }, abortedCall);
  await deliver(undefined, 5000);
  expect(dev.state.traces[uuid]).toBeUndefined();
  expect(stats()).toMatchObject({ tracesAbortedByPrerender: 1, tracesDiscarded: 0, tracesFailed: 0 });
  expect(log.lines.filter((l) => !l.startsWith("debug"))).toEqual([]);
  expect(log.lines.some((l) => l.includes("aborted by Next.js prerendering"))).toBe(true);
});

it("the same failure in a request (Next's store of type \"request\"), or in a prerender still running: recorded ERRORED as any failed call", async () => {
  configureForTest(dev.url, dev.projectKey);
  const running = new AbortController();
  const inRequest = await workUnits.run({ type: "request", renderSignal: running.signal }, abortedCall);
  const inRunningPrerender = await workUnits.run({ type: "prerender", renderSignal: running.signal }, abortedCall);
  await deliver(undefined, 5000);
  for (const uuid of [inRequest, inRunningPrerender]) {
    expect(dev.state.traces[uuid]?.spans.find((s) => s.type === "llm")?.status).toBe("ERRORED");
  }
  expect(stats().tracesAbortedByPrerender).toBe(0);
});
