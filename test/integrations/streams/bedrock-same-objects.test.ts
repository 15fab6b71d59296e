import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, InvokeModelCommand, InvokeModelWithResponseStreamCommand } from "@aws-sdk/client-bedrock-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeBedrock } from "../../../src/fakes/index.js";
import { observe, shutdown } from "../../../src/index.js";
import { wrapBedrock } from "../../../src/integrations/bedrock/index.js";
import { configureForTest } from "../../helpers/sdk.js";
import { expectSameObjects, objectShape } from "./same-objects.js";

// Issue 42, class 3a, on @aws-sdk/client-bedrock-runtime: what the wrapped client returns reads as
// what the raw client returns (the event stream's own [Symbol.asyncIterator] was replaced before).

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeBedrock>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeBedrock();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const CLAUDE = "anthropic.claude-3-5-sonnet-20240620-v1:0";
const client = (wrapped: boolean) => {
  const c = new BedrockRuntimeClient({ endpoint: fake.url, region: "us-east-1", credentials: { accessKeyId: "AKIDFAKE", secretAccessKey: "fake-secret" }, maxAttempts: 1 });
  return wrapped ? wrapBedrock(c) : c;
};
const messages = [{ role: "user" as const, content: [{ text: "When do orders ship?" }] }];
const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 100, messages: [{ role: "user", content: "When do orders ship?" }] });
const traced = <T>(fn: () => Promise<T>) => observe({ type: "agent", name: "agent" }, fn)();

describe("@aws-sdk/client-bedrock-runtime: the wrapped client's outputs read as the raw client's (util.inspect, own property names; issue 42)", () => {
  it("Converse, ConverseStream (its output and event stream before and after it is read), InvokeModel, InvokeModelWithResponseStream", async () => {
    await expectSameObjects((wrapped, snap) =>
      traced(async () => {
        const c = client(wrapped);
        snap("Converse output", await c.send(new ConverseCommand({ modelId: CLAUDE, messages })));
        const r = await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages }));
        snap("ConverseStream output", r);
        snap("event stream, unread", r.stream);
        for await (const event of r.stream!) snap(`event ${Object.keys(event)[0]}`, event);
        snap("event stream, read", r.stream);
        snap("InvokeModel output", await c.send(new InvokeModelCommand({ modelId: CLAUDE, body })));
        const s = await c.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body }));
        snap("InvokeModelWithResponseStream output", s);
        for await (const _ of s.body!);
        snap("InvokeModelWithResponseStream body, read", s.body);
      }),
    );
  });
});

describe("@aws-sdk/client-bedrock-runtime: the client is not changed by wrapping (own keys, descriptors, util.inspect with hidden members; issue 42)", () => {
  it("a wrapped client reads as a raw one, before and after the four model commands (and send's callback form)", async () => {
    const raw = client(false);
    const wrapped = client(true);
    expect(objectShape(wrapped)).toEqual(objectShape(raw));
    for (const c of [raw, wrapped]) {
      await traced(async () => {
        await c.send(new ConverseCommand({ modelId: CLAUDE, messages }));
        for await (const _ of (await c.send(new ConverseStreamCommand({ modelId: CLAUDE, messages }))).stream!);
        await c.send(new InvokeModelCommand({ modelId: CLAUDE, body }));
        for await (const _ of (await c.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body }))).body!);
        await new Promise((resolve) => c.send(new ConverseCommand({ modelId: CLAUDE, messages }), resolve));
      });
    }
    expect(objectShape(wrapped)).toEqual(objectShape(raw));
    expect(Object.hasOwn(wrapped, "send")).toBe(false);
  });
});
