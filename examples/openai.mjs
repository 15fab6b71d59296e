// The OpenAI integration, offline: a fake OpenAI server on loopback, the local emulator, and
// the real openai package.   npm run build && node examples/openai.mjs
import { createServer } from "node:http";
import OpenAI from "openai";
import { configure, flush, observe, shutdown } from "evaltrace";
import { startDevServer } from "evaltrace/devserver";
import { wrapOpenAI } from "evaltrace/openai";

// A stand-in for api.openai.com that answers every chat completion the same way.
const fake = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Orders ship within 2 days." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 },
    }));
  });
});
await new Promise((r) => fake.listen(0, "127.0.0.1", r));

const dev = await startDevServer({ port: 0 });
configure({ apiKey: dev.projectKey, baseUrl: dev.url });

// One line instruments the client.
const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-offline", baseURL: `http://127.0.0.1:${fake.address().port}/v1` }), { metricCollection: "answers" });

const answer = observe({ type: "agent", name: "support-agent" }, async (question) => {
  const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }] });
  return r.choices[0].message.content;
});
console.log(await answer("When do orders ship?"));
await flush();

for (const trace of Object.values(dev.state.traces)) {
  for (const s of trace.spans) {
    console.log(`[${s.type}] ${s.name}${s.model ? ` model=${s.model} tokens=${s.inputTokenCount}/${s.outputTokenCount} integration=${s.integration}` : ""}`);
  }
}
await shutdown();
await dev.close();
fake.close();
