import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeGoogleGenAI } from "../../../src/fakes/index.js";
import { observe, shutdown } from "../../../src/index.js";
import { wrapGoogleGenAI } from "../../../src/integrations/google-genai/index.js";
import { configureForTest } from "../../helpers/sdk.js";
import { expectSameObjects, objectShape } from "./same-objects.js";

// Issue 42, class 3a, on @google/genai: what the wrapped client returns reads as what the raw
// client returns (the stream's generator had its own next / return / throw replaced before).

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeGoogleGenAI>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeGoogleGenAI();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const client = (wrapped: boolean) => {
  const c = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: fake.url } });
  return wrapped ? wrapGoogleGenAI(c) : c;
};
const request = { model: "gemini-2.5-flash", contents: "When do orders ship?" };
const traced = <T>(fn: () => Promise<T>) => observe({ type: "agent", name: "agent" }, fn)();

describe("@google/genai: the wrapped client's objects read as the raw client's (util.inspect, own property names, prototype; issue 42)", () => {
  it("generateContent's response; generateContentStream's generator before and after it is read, and its chunks; a chat's sendMessageStream", async () => {
    const protos: unknown[] = [];
    await expectSameObjects((wrapped, snap) =>
      traced(async () => {
        const c = client(wrapped);
        snap("response", await c.models.generateContent(request));
        const stream = await c.models.generateContentStream(request);
        protos.push(Object.getPrototypeOf(stream));
        snap("generator, unread", stream);
        snap("generator's next", stream.next);
        for await (const chunk of stream) snap("a chunk", chunk);
        snap("generator, read", stream);
        const chat = c.chats.create({ model: "gemini-2.5-flash" });
        const reply = await chat.sendMessageStream({ message: "When do orders ship?" });
        snap("chat generator", reply);
        for await (const _ of reply);
        snap("chat history", chat.getHistory());
      }),
    );
    expect(protos[1]).toBe(protos[0]);
  });
});

describe("@google/genai: the client and its models / chats objects are not changed by wrapping (own keys, descriptors, util.inspect with hidden members; issue 42)", () => {
  it("the client, client.models, client.chats and a chat read the same wrapped as raw, before and after calls (plain, streamed, embedContent, countTokens, a chat)", async () => {
    const look = (c: GoogleGenAI, chat: object) => ({ client: objectShape(c), models: objectShape(c.models), chats: objectShape(c.chats), chat: objectShape(chat) });
    const raw = client(false);
    const wrapped = client(true);
    const rawChat = raw.chats.create({ model: "gemini-2.5-flash" });
    const wrappedChat = wrapped.chats.create({ model: "gemini-2.5-flash" });
    expect(look(wrapped, wrappedChat)).toEqual(look(raw, rawChat));
    for (const c of [raw, wrapped]) {
      await traced(async () => {
        await c.models.generateContent(request);
        for await (const _ of await c.models.generateContentStream(request));
        await c.models.embedContent({ model: "text-embedding-004", contents: "When do orders ship?" });
        await c.models.countTokens(request);
      });
    }
    for (const chat of [rawChat, wrappedChat]) await traced(() => chat.sendMessage({ message: "When do orders ship?" }));
    expect(look(wrapped, wrappedChat)).toEqual(look(raw, rawChat));
    expect(Object.getPrototypeOf(wrapped.models)).toBe(Object.getPrototypeOf(raw.models));
    // The class's methods, hooked, still read as its async methods: no prototype, their names and lengths.
    const proto = Object.getPrototypeOf(raw.models) as Record<string, (...a: unknown[]) => unknown>;
    for (const name of ["generateContentInternal", "generateContentWithContinuation", "processAfcStream", "countTokens"]) {
      expect([name, Object.hasOwn(proto[name]!, "prototype"), proto[name]!.name, proto[name]!.length]).toEqual([name, false, name, 1]);
    }
  });
});
