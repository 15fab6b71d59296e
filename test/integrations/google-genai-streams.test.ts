import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeGoogleGenAI, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { deliver, shutdown } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { importNode22, runsWithNode22 } from "../helpers/node22.js";
import { llmSpans, readUntil, storedTrace, traceWith, unfinished } from "./stream-scenarios.js";
import { runtimeName } from "../helpers/skips.js";

// Issue 31 on @google/genai 2 and 3 (3 needs Node 22+: skipped, and said so, on older Node):
// generateContentStream nobody reads, left by a break, aborted by config.abortSignal; and the
// ids linking a functionCall to its functionResponse in the next call's input.
const major = Number(process.versions.node.split(".")[0]);
const v3 = runsWithNode22(major >= 22 && !("Bun" in globalThis), "test/integrations/google-genai-streams.test.ts", `@google/genai 3 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`);

type Chunk = { candidates?: { content?: { parts?: { text?: string }[] } }[] };
type Client = { models: { generateContent(p: unknown): Promise<unknown>; generateContentStream(p: unknown): Promise<AsyncGenerator<Chunk>> } };
const text = (chunks: Chunk[]) => chunks.map((c) => (c.candidates?.[0]?.content?.parts ?? []).map((p) => p.text ?? "").join("")).join("");

let dev: DevServer;
let fake: FakeGoogleGenAI;
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

const majors: [string, boolean, () => Promise<new (o: unknown) => Client>][] = [
  ["@google/genai 2", true, async () => GoogleGenAI as unknown as new (o: unknown) => Client],
  ["@google/genai 3", v3, async () => ((await importNode22("google-genai-v3")) as { GoogleGenAI: new (o: unknown) => Client }).GoogleGenAI],
];

for (const [label, runs, load] of majors) {
  describe.skipIf(!runs)(`wrapGoogleGenAI with ${label}: stream edge cases and function-call ids (issue 31)`, () => {
    let Sdk: new (o: unknown) => Client;
    beforeAll(async () => {
      Sdk = await load();
    });
    const client = () => wrapGoogleGenAI(new Sdk({ apiKey: "test-key", httpOptions: { baseUrl: fake.url } }));
    const m = (marker: string) => `${label.replace(/\W+/g, "")}-${marker}`;
    const slow = { httpOptions: { headers: { "x-fake-stream-delay-ms": "20" } } };

    it("a functionCall's id is the assistant message's tool_calls[].id and the functionResponse's id its tool message's tool_call_id (one tool message per response)", async () => {
      await client().models.generateContent({
        model: "gemini-2.0-flash",
        contents: [
          { role: "user", parts: [{ text: `Where are my orders? (${m("ids")})` }] },
          {
            role: "model",
            parts: [
              { functionCall: { id: "call-a", name: "lookup_order", args: { orderId: "A-1" } } },
              { functionCall: { id: "call-b", name: "lookup_order", args: { orderId: "B-2" } } },
            ],
          },
          {
            role: "user",
            parts: [{ functionResponse: { id: "call-a", name: "lookup_order", response: { status: "shipped" } } }, { functionResponse: { id: "call-b", name: "lookup_order", response: { status: "packed" } } }],
          },
        ],
      });
      const [llm] = llmSpans(await storedTrace(dev, m("ids")));
      expect(llm!.input).toEqual([
        { role: "user", content: `Where are my orders? (${m("ids")})` },
        {
          role: "assistant",
          content: 'lookup_order({"orderId":"A-1"})\nlookup_order({"orderId":"B-2"})',
          tool_calls: [
            { id: "call-a", name: "lookup_order", arguments: { orderId: "A-1" } },
            { id: "call-b", name: "lookup_order", arguments: { orderId: "B-2" } },
          ],
        },
        { role: "tool", content: '{"status":"shipped"}', tool_call_id: "call-a" },
        { role: "tool", content: '{"status":"packed"}', tool_call_id: "call-b" },
      ]);
    });

    it("a stream nobody reads does not keep its trace open past deliver(): sent ERRORED, never read", async () => {
      await client().models.generateContentStream({ model: "gemini-2.0-flash", contents: `When? (${m("never-read")})` });
      await deliver(undefined, 1000);
      const t = traceWith(dev, m("never-read"));
      expect(t, "stored by deliver()").toBeDefined();
      expect(llmSpans(t!)).toMatchObject([{ status: "ERRORED", error: expect.stringMatching(/never read/) }]);
      expect(unfinished(t!)).toEqual([]);
    });

    it("a break out of the loop: ERRORED as cut short by the app, with the text read so far", async () => {
      const stream = await client().models.generateContentStream({ model: "gemini-2.0-flash", contents: `When? (${m("break")})`, config: slow });
      const { items } = await readUntil(stream, (n) => n === 2);
      const [llm] = llmSpans(await storedTrace(dev, m("break")));
      expect(llm).toMatchObject({ status: "ERRORED", error: "stream cut short: the app stopped reading before its end", output: text(items) });
    });

    it("a stream aborted by config.abortSignal with a reason: ERRORED 'aborted: <reason>' with the text so far; the app gets the SDK's own error", async () => {
      const abort = new AbortController();
      const stream = await client().models.generateContentStream({ model: "gemini-2.0-flash", contents: `When? (${m("abort")})`, config: { ...slow, abortSignal: abort.signal } });
      const { items, threw } = await readUntil(stream, (n) => {
        if (n === 2) abort.abort(new Error("user closed the tab"));
        return false;
      });
      expect(text(items)).not.toBe(FAKE_REPLY);
      const [llm] = llmSpans(await storedTrace(dev, m("abort")));
      expect(llm).toMatchObject({ status: "ERRORED", error: "aborted: user closed the tab" });
      expect(FAKE_REPLY.startsWith(String(llm!.output ?? ""))).toBe(true);
      expect(String(llm!.output ?? "").startsWith(text(items))).toBe(true);
      // What the app saw is the SDK's, whatever it is (an error, or a quiet end).
      expect(threw === undefined || threw instanceof Error).toBe(true);
    });
  });
}
