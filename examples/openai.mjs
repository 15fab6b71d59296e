// The OpenAI SDK integration, offline: the real openai package against the fake OpenAI server
// and the local emulator.   npm run build && node examples/openai.mjs
import { configure, flush, observe, shutdown } from "evaltrace";
import { startDevServer } from "@evaltrace/dev";
import { startFakeOpenAI } from "@evaltrace/dev/fakes";
import { wrapOpenAI } from "evaltrace/openai";
import OpenAI from "openai";
import { printTraces } from "./print-traces.mjs";

const fake = await startFakeOpenAI();
const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// One line instruments the client.
const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-offline", baseURL: fake.url }), { metricCollection: "answers" });

const answer = observe({ type: "agent", name: "support-agent" }, async (question) => {
  const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: question }] });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
  return text;
});
console.log(await answer("When do orders ship?"));
await flush();
printTraces(dev);
await shutdown();
await dev.close();
await fake.close();
