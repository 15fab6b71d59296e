import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeAnthropic } from "../../src/fakes/index.js";
import { deliver, observe, shutdown } from "../../src/index.js";
import { wrapAnthropic } from "../../src/integrations/anthropic.js";
import { configureForTest } from "../helpers/sdk.js";
import { llmSpans, traceWith, unfinished } from "../integrations/stream-scenarios.js";

// docs/streams.md: a stream the app never read ends ERRORED "never read by the app". deliver()
// and shutdown() (and the exit hooks) drain through one policy (src/runtime/drain.ts), so the
// stream ends the same way whichever way out the app takes; before, shutdown() sent it merely
// unfinished.

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const exits: [string, () => Promise<unknown>][] = [
  ["deliver()", () => deliver(undefined, 1000)],
  ["shutdown()", () => shutdown(1000)],
];

describe.each(exits)("a stream the app never read, then %s", (way, exit) => {
  const marker = (m: string) => `${way.replace(/\W+/g, "")}-${m}`;
  const params = (m: string) => ({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true as const, messages: [{ role: "user" as const, content: `When? (${marker(m)})` }] });

  it("is sent ERRORED, never read, not merely unfinished: as its own trace and under a handler that returned", async () => {
    configureForTest(dev.url, dev.projectKey);
    const client = wrapAnthropic(new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 }));
    await client.messages.create(params("root"));
    await observe({ name: "handler" }, async () => {
      await client.messages.create(params("child"));
    })();
    await exit();
    for (const m of ["root", "child"]) {
      const t = traceWith(dev, marker(m));
      expect(t, `${m}: stored by ${way}`).toBeDefined();
      expect(llmSpans(t!), m).toMatchObject([{ status: "ERRORED", error: "stream cut short: never read by the app" }]);
      expect(unfinished(t!), m).toEqual([]);
    }
  });
});
