import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeOpenAI } from "../../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../../src/index.js";
import { wrapOpenAI } from "../../../src/integrations/openai/index.js";
import { configureForTest } from "../../helpers/sdk.js";
import { clientReading, expectSameObjects } from "./same-objects.js";

// Issue 42, class 3a, on openai 6: what the wrapped client returns reads as what the raw client
// returns (the Stream printed `iterator: [Function: value]` instead of
// `[AsyncGeneratorFunction: iterator]` before: its own field was replaced).

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeOpenAI();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const client = (wrapped: boolean) => {
  const c = new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
  return wrapped ? wrapOpenAI(c) : c;
};
const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "When do orders ship?" }] };
const responses = { model: "gpt-4o-mini", input: "When do orders ship?" };
const traced = <T>(fn: () => Promise<T>) => observe({ type: "agent", name: "agent" }, fn)();

describe("openai: the wrapped client's objects read as the raw client's (util.inspect, own property names; issue 42)", () => {
  it("chat completions: the API promise, the response, a Stream before and after it is read, a tee()d branch", async () => {
    await expectSameObjects((wrapped, snap) =>
      traced(async () => {
        const c = client(wrapped);
        const promise = c.chat.completions.create(chat);
        snap("API promise, pending", promise);
        snap("response", await promise);
        snap("API promise, settled", promise);
        const { data, response } = await c.chat.completions.create(chat).withResponse();
        snap("withResponse data", data);
        snap("withResponse response", response);
        const stream = await c.chat.completions.create({ ...chat, stream: true });
        snap("Stream, unread", stream);
        for await (const chunk of stream) snap("a chunk", chunk);
        snap("Stream, read", stream);
        const [left, right] = (await c.chat.completions.create({ ...chat, stream: true })).tee();
        for await (const _ of left);
        for await (const _ of right);
        snap("tee()d branch", left);
      }),
    );
  });

  it("helpers: ChatCompletionStream, a runTools runner, ResponseStream, a parsed response, a Responses stream", async () => {
    await expectSameObjects((wrapped, snap) =>
      traced(async () => {
        const c = client(wrapped);
        const helper = c.chat.completions.stream(chat);
        for await (const _ of helper);
        snap("final chat completion", await helper.finalChatCompletion());
        snap("ChatCompletionStream", helper);
        const runner = c.chat.completions.runTools({ ...chat, tools: [] } as never);
        snap("runner result", await (runner as unknown as { finalChatCompletion(): Promise<unknown> }).finalChatCompletion());
        snap("runner", runner);
        const parsed = await c.chat.completions.parse(chat);
        snap("parsed chat completion", parsed);
        const rs = c.responses.stream(responses);
        for await (const _ of rs);
        snap("final response", await rs.finalResponse());
        snap("ResponseStream", rs);
        const stream = await c.responses.create({ ...responses, stream: true });
        for await (const _ of stream);
        snap("Responses Stream", stream);
        snap("response", await c.responses.create(responses));
      }),
    );
  });

  // Issue 42, "no own property of an SDK object replaced or added": wrapOpenAI put `create` on each
  // resource object and `withOptions` and a marker on the client before.
  it("the client and its resources (chat, chat.completions, responses, embeddings, beta.responses, a withOptions() copy): Reflect.ownKeys, descriptors and util.inspect (showHidden) are the raw client's and what they were before wrapOpenAI; the wrapped client and its copy are traced, the raw one is not", async () => {
    const paths = ["chat", "chat.completions", "responses", "embeddings", "completions", "beta", "beta.responses"];
    const raw = client(false);
    const c = client(false);
    const before = clientReading(c, paths);
    expect(before).toEqual(clientReading(raw, paths));
    expect(wrapOpenAI(c)).toBe(c);
    expect(wrapOpenAI(c)).toBe(c);
    expect(clientReading(c, paths)).toEqual(before);
    const copy = c.withOptions({ timeout: 5000 });
    expect(clientReading(copy, paths)).toEqual(clientReading(raw.withOptions({ timeout: 5000 }), paths));
    let uuid = "";
    await traced(async () => {
      uuid = currentTraceUuid()!;
      await c.chat.completions.create(chat);
      await copy.responses.create(responses);
      await raw.chat.completions.create(chat);
      await raw.embeddings.create({ model: "text-embedding-3-small", input: "x" });
    });
    expect(clientReading(c, paths)).toEqual(clientReading(raw, paths));
    expect((await flush()).ok).toBe(true);
    const llm = dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
    expect(llm.map((s) => s.name).sort()).toEqual(["openai.chat.completions", "openai.responses"]);
  });
});
