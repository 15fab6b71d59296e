import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import type { StoredTrace } from "../../src/devserver/store/store.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { deliver, observe, shutdown } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { runChild } from "../helpers/child.js";
import { configureForTest } from "../helpers/sdk.js";
import { llmSpans, traceWith, unfinished } from "../integrations/stream-scenarios.js";

// Issue 42: a stream the app never reads ends one way whatever the exit (deliver(), shutdown(),
// the loop running dry, SIGTERM): ERRORED "never read by the app"; one read partly ends
// "not read to its end by the app" with the text read so far. Never unfinished, never SUCCESS.
// A real openai stream against the fake; the natural exit and SIGTERM in child processes
// (the built package).

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

/** The app's code: a stream never read as its own trace, one under a handler that returned, one read for its first text only. */
const APP = `
  const client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_URL, maxRetries: 0 }));
  const ask = (m) => client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "When? (" + process.env.WAY + "-" + m + ")" }] });
  const held = [await ask("root")];
  await observe({ name: "handler" }, async () => { held.push(await ask("child")); })();
  const partly = await ask("partly");
  const it = partly[Symbol.asyncIterator]();
  while (!(await it.next()).value?.choices?.[0]?.delta?.content) {}
  held.push(partly, it);
`;

function expectEndedAlike(way: string, stderr?: string): void {
  const stored = (m: string): StoredTrace => {
    const t = traceWith(dev, `${way}-${m}`);
    expect(t, `${way}-${m} stored`).toBeDefined();
    return t!;
  };
  for (const m of ["root", "child"]) {
    expect(llmSpans(stored(m)), m).toMatchObject([{ status: "ERRORED", error: "stream cut short: never read by the app" }]);
    expect(unfinished(stored(m)), m).toEqual([]);
  }
  const partly = stored("partly");
  expect(llmSpans(partly)).toMatchObject([{ status: "ERRORED", error: "stream cut short: not read to its end by the app", output: expect.stringMatching(/^Orders/) }]);
  expect(unfinished(partly)).toEqual([]);
  if (stderr !== undefined) expect(stderr).toBe("");
}

describe("a stream the app never read (or read partly) ends the same way on every exit path", () => {
  const inProcess: [string, () => Promise<unknown>][] = [
    ["deliver", () => deliver(undefined, 2000)],
    ["shutdown", () => shutdown(2000)],
  ];
  it.each(inProcess)("%s(): ERRORED never read / not read to its end, the text read so far kept, nothing unfinished", async (way, exit) => {
    configureForTest(dev.url, dev.projectKey);
    process.env.WAY = way;
    process.env.FAKE_URL = fake.url;
    const run = new Function("wrapOpenAI", "OpenAI", "observe", `return (async () => { ${APP} })();`) as (...a: unknown[]) => Promise<void>;
    await run(wrapOpenAI, OpenAI, observe);
    await exit();
    expectEndedAlike(way);
  });

  const env = () => ({ EVALTRACE_API_KEY: dev.projectKey, EVALTRACE_BASE_URL: dev.url, FAKE_URL: fake.url });
  const imports = `import OpenAI from "openai"; import { observe } from "evaltrace"; import { wrapOpenAI } from "evaltrace/openai";`;

  it("the loop running dry (no flush): the same, nothing printed", async () => {
    const child = runChild("esm", `${imports}\n${APP}\nglobalThis.keep = held;`, { ...env(), WAY: "natural" });
    const done = await child.finished;
    expect({ code: done.code, signal: done.signal }).toEqual({ code: 0, signal: null });
    expectEndedAlike("natural", done.stderr);
  });

  it("SIGTERM with no handler of the app: the same, and the process ends by the signal", async () => {
    const child = runChild("esm", `${imports}\n${APP}\nglobalThis.keep = held; setInterval(() => {}, 1000); console.log("ready");`, { ...env(), WAY: "sigterm" });
    await child.waitFor("ready");
    child.process.kill("SIGTERM");
    const done = await child.finished;
    expect({ code: done.code, signal: done.signal }).toEqual({ code: null, signal: "SIGTERM" });
    expectEndedAlike("sigterm", done.stderr);
  });
});
