// The Google GenAI SDK integration, offline: the real @google/genai package against the fake
// Gemini server and the local emulator.   npm run build && node examples/google-genai.mjs
import { GoogleGenAI } from "@google/genai";
import { configure, flush, observe, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeGoogleGenAI } from "@evaltrace/dev/fakes";
import { wrapGoogleGenAI } from "evaltrace/google-genai";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeGoogleGenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// One line instruments the client (in place: it is still the app's own object).
const ai = wrapGoogleGenAI(new GoogleGenAI({ apiKey: "offline", httpOptions: { baseUrl: fake.url } }), { metricCollection: "answers" });

const tools = [{ functionDeclarations: [{ name: "lookup_order", description: "Finds an order", parametersJsonSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } }] }];
const lookupOrder = observe({ type: "tool", name: "lookup_order" }, async ({ orderId }) => ({ status: `order ${orderId} shipped yesterday` }));

const answer = observe({ type: "agent", name: "support-agent" }, async (question) => {
  const contents = [{ role: "user", parts: [{ text: question }] }];
  const config = { systemInstruction: "You are a support bot.", tools };
  const first = await ai.models.generateContent({ model: "gemini-2.0-flash", contents, config });
  const call = first.candidates[0].content.parts.find((p) => p.functionCall).functionCall;
  contents.push(first.candidates[0].content);
  contents.push({ role: "user", parts: [{ functionResponse: { name: call.name, response: await lookupOrder(call.args) } }] });
  // Streams are traced too: one span when the stream ends.
  let text = "";
  for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.0-flash", contents, config })) text += chunk.text ?? "";
  return text;
});
console.log(await answer("Where is my order?"));
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
