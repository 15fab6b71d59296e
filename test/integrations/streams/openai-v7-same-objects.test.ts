import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeOpenAI } from "../../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../../src/index.js";
import { wrapOpenAI } from "../../../src/integrations/openai/index.js";
import { requireNode22, runsWithNode22 } from "../../helpers/node22.js";
import { runtimeName } from "../../helpers/skips.js";
import { configureForTest } from "../../helpers/sdk.js";
import { clientReading, expectSameObjects } from "./same-objects.js";

// Issue 42 on openai 7 (Node 22+): its chat `create` makes a stream's `[Symbol.asyncIterator]`
// its own (a chunk-normalizing async generator binding the Stream class's method). Before, the
// first traced stream of a process had that own property replaced by a look-alike generator (the
// Stream class was hooked only at that call, after the SDK had bound its method). This file's
// first traced call is such a stream: nothing of it may differ from the raw client's.
const major = Number(process.versions.node.split(".")[0]);
const supported = runsWithNode22(major >= 22 && !("Bun" in globalThis), "test/integrations/streams/openai-v7-same-objects.test.ts", `openai 7 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`);

type Stream = AsyncIterable<{ choices: { delta: { content?: string } }[] }>;
type Client = { chat: { completions: { create(b: unknown): Promise<Stream> } }; withOptions(o: unknown): Client };
let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let OpenAI: new (o: unknown) => Client;
beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
  OpenAI = requireNode22("openai-v7");
});
afterAll(async () => {
  if (!supported) return;
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "When do orders ship?" }], stream: true };

describe.skipIf(!supported)("openai 7: the wrapped client's objects read as the raw client's (issue 42)", () => {
  it("the process's first traced call, a chat stream: its own [Symbol.asyncIterator] is the SDK's function (same source text), the Stream reads the same before and after it is read, and its span ends with the text", async () => {
    let uuid = "";
    await expectSameObjects(async (wrapped, snap) => {
      const raw = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
      const c = wrapped ? wrapOpenAI(raw) : raw;
      await observe({ type: "agent", name: "agent" }, async () => {
        if (wrapped) uuid = currentTraceUuid()!;
        const stream = await c.chat.completions.create(chat);
        const own = Object.getOwnPropertyDescriptor(stream, Symbol.asyncIterator);
        snap("own [Symbol.asyncIterator]: its source text", String(own?.value));
        snap("Stream, unread", stream);
        let text = "";
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
        snap("text read", text);
        snap("Stream, read", stream);
      })();
    });
    expect((await flush()).ok).toBe(true);
    const llm = dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
    expect(llm.map((s) => [s.status ?? "SUCCESS", s.output])).toEqual([["SUCCESS", "Orders ship in 2 days."]]);
  });

  it("the client and its resources: Reflect.ownKeys, descriptors and util.inspect (showHidden) are the raw client's after wrapOpenAI, and a withOptions() copy's too", () => {
    const paths = ["chat", "chat.completions", "responses", "embeddings", "beta", "beta.responses"];
    const raw = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
    const c = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
    const before = clientReading(c, paths);
    expect(wrapOpenAI(c)).toBe(c);
    expect(clientReading(c, paths)).toEqual(before);
    expect(clientReading(c, paths)).toEqual(clientReading(raw, paths));
    expect(clientReading(c.withOptions({ timeout: 5000 }), paths)).toEqual(clientReading(raw.withOptions({ timeout: 5000 }), paths));
  });
});
