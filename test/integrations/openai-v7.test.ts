import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { runsHere } from "../helpers/skips.js";

// openai 7 (Node 22+): the same instrumentation, and `withOptions()` clients traced too. On older
// Node this file says so and skips (npm run test:runtimes runs it on Node 22 and 24).
const major = Number(process.versions.node.split(".")[0]);
const supported = runsHere(major >= 22 && !("Bun" in globalThis), "test/integrations/openai-v7.test.ts", `openai 7 needs Node 22+ (this is ${process.version}); npm run test:runtimes runs it`);

type Client = {
  chat: { completions: { create(b: unknown): Promise<{ choices: { message: { content: string } }[] }> & { asResponse(): Promise<Response> } } };
  withOptions(o: unknown): Client;
  get(path: string): Promise<unknown>;
};
let dev: DevServer;
let fake: FakeOpenAI;
let OpenAI: new (o: unknown) => Client;
beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  OpenAI = createRequire(import.meta.url)("openai-v7");
});
afterAll(async () => {
  if (!supported) return;
  await shutdown(0);
  await fake.close();
  await dev.close();
});

describe.skipIf(!supported)("wrapOpenAI with openai 7", () => {
  it("create, asResponse, #private get and a withOptions() client: spans, and the raw behaviour", async () => {
    const client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    let uuid = "";
    await observe({ type: "agent", name: "agent-v7" }, async () => {
      uuid = currentTraceUuid()!;
      const r = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      expect(r.choices[0]!.message.content).toBe("Orders ship in 2 days.");
      const response = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "raw" }] }).asResponse();
      expect(response.status).toBe(200);
      await response.json();
      expect(await client.get("/models")).toBeDefined();
      const derived = client.withOptions({ timeout: 5000 });
      await derived.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "derived" }] });
    })();
    expect((await flush()).ok).toBe(true);
    const llm = dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
    expect(llm).toHaveLength(3);
    expect(llm.map((s) => (s.input as { content: string }[])[0]!.content).sort()).toEqual(["derived", "hi", "raw"]);
  });
});
