import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeAnthropic } from "../../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../../src/index.js";
import { wrapAnthropic } from "../../../src/integrations/anthropic.js";
import { configureForTest } from "../../helpers/sdk.js";
import { clientReading, expectSameObjects } from "./same-objects.js";

// Issue 42, class 3a, on @anthropic-ai/sdk: what the wrapped client returns reads as what the raw
// client returns (the Stream's own `iterator` and the API promise's `parseResponse` were replaced
// before, and `asResponse` added as an own property).

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const client = (wrapped: boolean) => {
  const c = new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 });
  return wrapped ? wrapAnthropic(c) : c;
};
const params = { model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user" as const, content: "When do orders ship?" }] };
const tool = { name: "lookup_order", description: "Finds an order", input_schema: { type: "object" as const, properties: { orderId: { type: "string" } } } };
const traced = <T>(fn: () => Promise<T>) => observe({ type: "agent", name: "agent" }, fn)();

describe("@anthropic-ai/sdk: the wrapped client's objects read as the raw client's (util.inspect, own property names; issue 42)", () => {
  it("messages: the API promise, the message, asResponse, a Stream before and after it is read, a tee()d branch", async () => {
    await expectSameObjects((wrapped, snap) =>
      traced(async () => {
        const c = client(wrapped);
        const promise = c.messages.create(params);
        snap("API promise, pending", promise);
        snap("message", await promise);
        snap("API promise, settled", promise);
        const raw = c.messages.create(params);
        await raw.asResponse();
        snap("API promise read with asResponse()", raw);
        const stream = await c.messages.create({ ...params, stream: true });
        snap("Stream, unread", stream);
        for await (const event of stream) snap(`event ${event.type}`, event);
        snap("Stream, read", stream);
        const [left, right] = (await c.messages.create({ ...params, stream: true })).tee();
        for await (const _ of left);
        for await (const _ of right);
        snap("tee()d branch", left);
      }),
    );
  });

  it("helpers: MessageStream, BetaMessageStream, a parsed message, a tool runner and its streams", async () => {
    await expectSameObjects((wrapped, snap) =>
      traced(async () => {
        const c = client(wrapped);
        const helper = c.messages.stream(params);
        for await (const _ of helper);
        snap("final message", await helper.finalMessage());
        snap("MessageStream", helper);
        const beta = c.beta.messages.stream(params);
        for await (const _ of beta);
        snap("BetaMessageStream final message", await beta.finalMessage());
        snap("BetaMessageStream", beta);
        snap("parsed message", await c.messages.parse(params));
        const runner = c.beta.messages.toolRunner({ ...params, stream: true, max_iterations: 2, tools: [{ ...tool, run: () => "shipped" }] } as never);
        for await (const s of runner as unknown as AsyncIterable<AsyncIterable<unknown> & { finalMessage(): Promise<unknown> }>) {
          for await (const _ of s);
          snap("tool runner turn message", await s.finalMessage());
        }
        snap("tool runner", runner);
      }),
    );
  });

  // Issue 42, "no own property of an SDK object replaced or added": wrapAnthropic put `create`,
  // `stream` and a marker on each messages resource and `withOptions` on the client before.
  it("the client and its resources (messages, beta.messages, a withOptions() copy): Reflect.ownKeys, descriptors and util.inspect (showHidden) are the raw client's and what they were before wrapAnthropic; the wrapped client and its copy are traced, the raw one is not", async () => {
    const paths = ["messages", "messages.batches", "beta", "beta.messages", "completions"];
    const raw = client(false);
    const c = client(false);
    const before = clientReading(c, paths);
    expect(before).toEqual(clientReading(raw, paths));
    expect(wrapAnthropic(c)).toBe(c);
    expect(wrapAnthropic(c)).toBe(c);
    expect(clientReading(c, paths)).toEqual(before);
    const copy = c.withOptions({ timeout: 5000 });
    expect(clientReading(copy, paths)).toEqual(clientReading(raw.withOptions({ timeout: 5000 }), paths));
    let uuid = "";
    await traced(async () => {
      uuid = currentTraceUuid()!;
      await c.messages.create(params);
      const s = copy.beta.messages.stream(params);
      for await (const _ of s);
      await raw.messages.create(params);
      for await (const _ of raw.messages.stream(params));
    });
    expect(clientReading(c, paths)).toEqual(clientReading(raw, paths));
    expect((await flush()).ok).toBe(true);
    const llm = dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
    expect(llm.map((s) => s.name).sort()).toEqual(["anthropic.beta.messages.stream", "anthropic.messages.create"]);
  });
});
