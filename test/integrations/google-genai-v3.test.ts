import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeGoogleGenAI, startFakeGoogleGenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, shutdown } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/integrations/google-genai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { importNode22, runsWithNode22 } from "../helpers/node22.js";
import { runtimeName } from "../helpers/skips.js";

// @google/genai 3 (Node 22+): the same instrumentation as with major 2 (google-genai.test.ts). On
// older Node this file says so and skips (npm run test:runtimes runs it on Node 22 and 24).
const major = Number(process.versions.node.split(".")[0]);
const supported = runsWithNode22(major >= 22 && !("Bun" in globalThis), "test/integrations/google-genai-v3.test.ts", `@google/genai 3 needs Node 22+ (this is ${runtimeName}); npm run test:runtimes runs it`);

type Response = { candidates?: { content?: { parts?: { text?: string; functionCall?: unknown }[] } }[] };
type Client = {
  models: {
    generateContent(p: unknown): Promise<Response>;
    generateContentStream(p: unknown): Promise<AsyncGenerator<Response>>;
  };
};
let dev: DevServer;
let fake: FakeGoogleGenAI;
let GoogleGenAI: new (o: unknown) => Client;
beforeAll(async () => {
  if (!supported) return;
  dev = await startDevServer({ port: 0 });
  fake = await startFakeGoogleGenAI();
  configureForTest(dev.url, dev.projectKey);
  ({ GoogleGenAI } = (await importNode22("google-genai-v3")) as { GoogleGenAI: typeof GoogleGenAI });
});
afterAll(async () => {
  if (!supported) return;
  await shutdown(0);
  await fake.close();
  await dev.close();
});

const tools = [{ functionDeclarations: [{ name: "lookup_order", parametersJsonSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } }] }];

describe.skipIf(!supported)("wrapGoogleGenAI with @google/genai 3", () => {
  it("records generateContent (text and function call) and generateContentStream, one span each, the client kept", async () => {
    const raw = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: fake.url } });
    const models = raw.models;
    const ai = wrapGoogleGenAI(wrapGoogleGenAI(raw));
    expect(ai).toBe(raw);
    expect(ai.models).toBe(models);
    let uuid = "";
    await observe({ type: "agent", name: "agent" }, async () => {
      uuid = currentTraceUuid()!;
      const r = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "When do orders ship?", config: { systemInstruction: "Be brief" } });
      expect(r.candidates?.[0]?.content?.parts?.[0]?.text).toBe("Orders ship in 2 days.");
      await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Where is my order?", config: { tools } });
      let text = "";
      for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "When?" })) text += chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? "";
      expect(text).toBe("Orders ship in 2 days.");
      await ai.models.generateContent({ model: "error-429", contents: "x" }).catch(() => undefined);
    })();
    expect((await flush()).ok).toBe(true);
    const llm = dev.state.traces[uuid]!.spans.filter((s) => s.type === "llm");
    expect(llm.map((s) => [s.name, s.provider, s.status, s.output])).toEqual([
      ["gemini.generateContent", "Gemini", "SUCCESS", "Orders ship in 2 days."],
      ["gemini.generateContent", "Gemini", "SUCCESS", 'lookup_order({"orderId":"A-1001"})'],
      ["gemini.generateContentStream", "Gemini", "SUCCESS", "Orders ship in 2 days."],
      ["gemini.generateContent", "Gemini", "ERRORED", undefined],
    ]);
    expect(llm[0]!.input).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: "When do orders ship?" },
    ]);
    expect(llm[1]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
  });

  it("automatic function calling (a callable tool): an agent span with one llm span per model request the fake served and the tool call between them, plain and streamed", async () => {
    const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: fake.url } }));
    const tool = {
      tool: async () => ({ functionDeclarations: tools[0]!.functionDeclarations }),
      callTool: async (calls: { name: string; args: { orderId: string } }[]) => calls.map((c) => ({ functionResponse: { name: c.name, response: { output: `order ${c.args.orderId} shipped` } } })),
    };
    const before = fake.requests.length;
    let uuid = "";
    await observe({ type: "agent", name: "agent" }, async () => {
      uuid = currentTraceUuid()!;
      const r = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Where is my order?", config: { tools: [tool] } });
      expect(r.candidates?.[0]?.content?.parts?.[0]?.text).toBe("Orders ship in 2 days.");
      for await (const _chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "Where is my order?", config: { tools: [tool] } })) {
        // consume
      }
    })();
    expect(fake.requests.length - before).toBe(4);
    expect((await flush()).ok).toBe(true);
    const spans = [...dev.state.traces[uuid]!.spans].sort((a, b) => a.startTime.localeCompare(b.startTime));
    const runs = spans.filter((s) => s.name === "gemini.automaticFunctionCalling");
    expect(runs.map((s) => [s.type, s.status, s.output, s.availableTools])).toEqual([
      ["agent", "SUCCESS", "Orders ship in 2 days.", ["lookup_order"]],
      ["agent", "SUCCESS", "Orders ship in 2 days.", ["lookup_order"]],
    ]);
    for (const [run, name] of [
      [runs[0]!, "gemini.generateContent"],
      [runs[1]!, "gemini.generateContentStream"],
    ] as const) {
      const steps = spans.filter((s) => s.parentUuid === run.uuid);
      expect(steps.map((s) => [s.type, s.name, s.output])).toEqual([
        ["llm", name, 'lookup_order({"orderId":"A-1001"})'],
        ["tool", "lookup_order", { output: "order A-1001 shipped" }],
        ["llm", name, "Orders ship in 2 days."],
      ]);
      expect(steps[0]!.toolsCalled).toEqual([{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }]);
      for (const llm of [steps[0]!, steps[2]!]) expect(llm.inputTokenCount).toBeGreaterThan(0);
    }
  });
});
