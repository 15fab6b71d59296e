import { GoogleGenAI } from "@google/genai";
import { describe, it } from "vitest";
import { startFakeGoogleGenAI } from "../../../src/fakes/index.js";
import { wrapGoogleGenAI } from "../../../src/integrations/google-genai/index.js";
import { expectEndedWithOutput, llmSpansOf, type SeenUsage, streamRig } from "./read-to-end.js";

// Issue 42, class 2, on @google/genai: generateContentStream and a chat's sendMessageStream, read
// to their end, end the call's llm span with the output, the tokens the app saw and the tool call.

const rig = streamRig(startFakeGoogleGenAI);

type Chunk = { usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number } };
const client = () => wrapGoogleGenAI(new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: rig.fake.url } }));
const config = { tools: [{ functionDeclarations: [{ name: "lookup_order", description: "Finds an order", parametersJsonSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } }] }] };
const ask = "Where is my order? Use lookup_order.";

/** Reads the stream to its end: the last usage it reported. */
async function drain(stream: AsyncIterable<Chunk>): Promise<SeenUsage> {
  let usage: Chunk["usageMetadata"];
  for await (const chunk of stream) if (chunk.usageMetadata) usage = chunk.usageMetadata;
  return { input: usage?.promptTokenCount ?? -1, output: usage?.candidatesTokenCount ?? -1 };
}

describe("@google/genai: a stream read to its end ends its llm span with output, tokens and tool calls (issue 42)", () => {
  it("models.generateContentStream read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      usages.push(await drain(await client().models.generateContentStream({ model: "gemini-2.5-flash", contents: ask, config })));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });

  it("chats.create().sendMessageStream read with for await", async () => {
    const usages: SeenUsage[] = [];
    const llm = await llmSpansOf(rig.dev, async () => {
      const chat = client().chats.create({ model: "gemini-2.5-flash", config });
      usages.push(await drain(await chat.sendMessageStream({ message: ask })));
    });
    expectEndedWithOutput(llm, usages, "lookup_order", rig.log.lines);
  });
});
