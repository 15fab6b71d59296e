// One cold start of a serverless function (bench/serverless.mjs runs it as a new process): the
// module loads its SDKs at the top level (a function's init), a platform-like runtime calls the
// handler once with an event, writes its answer out the moment the handler returns (the first
// byte of the response), then waits for what the handler handed to `waitUntil` (the trace's
// delivery: Vercel's and Cloudflare's `waitUntil`), writes "delivered" and exits.
//   SERVERLESS_SUBJECT: "bare"      — no tracing;
//                       "evaltrace" — observe() around the handler, wrapOpenAI() around the client, deliver(waitUntil);
//                       "langfuse"  — @langfuse/tracing's observe() around the handler and a generation
//                                     around the call (startActiveObservation), its LangfuseSpanProcessor
//                                     on a NodeTracerProvider, waitUntil(processor.forceFlush()).
//   SERVERLESS_FAKE_URL: the fake OpenAI server; SERVERLESS_URL: the subject's prefix on the receiver.
import OpenAI from "openai";

const subject = process.env.SERVERLESS_SUBJECT;
const base = process.env.SERVERLESS_URL;
const pending = [];
const waitUntil = (p) => pending.push(p);

const MODEL = "gpt-4o-mini";
const ask = (client, question) =>
  client.chat.completions.create({
    model: MODEL,
    messages: [
      { role: "system", content: "You are a weather assistant for a travel company. Answer in two or three short sentences." },
      { role: "user", content: question },
    ],
    temperature: 0.2,
  });

/** The function's handler and its init, per subject. */
async function init() {
  if (subject === "bare") {
    const client = new OpenAI({ apiKey: "sk-bench", baseURL: process.env.SERVERLESS_FAKE_URL, maxRetries: 0 });
    return async (event) => (await ask(client, event.question)).choices[0].message.content;
  }
  if (subject === "evaltrace") {
    const { configure, deliver, observe } = await import("../packages/evaltrace/dist/index.js");
    const { wrapOpenAI } = await import("../packages/evaltrace/dist/openai.js");
    configure({ apiKey: "svc_local_proj_bench", baseUrl: base });
    const client = wrapOpenAI(new OpenAI({ apiKey: "sk-bench", baseURL: process.env.SERVERLESS_FAKE_URL, maxRetries: 0 }));
    const handle = observe({ type: "agent", name: "weather-handler" }, async (event) => (await ask(client, event.question)).choices[0].message.content);
    return async (event) => {
      const answer = await handle(event);
      deliver(waitUntil);
      return answer;
    };
  }
  if (subject === "langfuse") {
    const { NodeTracerProvider } = await import("@opentelemetry/sdk-trace-node");
    const { LangfuseSpanProcessor } = await import("@langfuse/otel");
    const { observe, startActiveObservation } = await import("@langfuse/tracing");
    const processor = new LangfuseSpanProcessor({ publicKey: "pk-lf-bench", secretKey: "sk-lf-bench", baseUrl: base, mediaUploadEnabled: false });
    new NodeTracerProvider({ spanProcessors: [processor] }).register();
    const client = new OpenAI({ apiKey: "sk-bench", baseURL: process.env.SERVERLESS_FAKE_URL, maxRetries: 0 });
    const handle = observe(
      async (event) =>
        startActiveObservation(
          "chat gpt-4o-mini",
          async (generation) => {
            generation.update({ model: MODEL, input: event.question });
            const res = await ask(client, event.question);
            const u = res.usage;
            generation.update({ output: res.choices[0].message, usageDetails: { input: u.prompt_tokens, output: u.completion_tokens } });
            return res.choices[0].message.content;
          },
          { asType: "generation" },
        ),
      { name: "weather-handler", asType: "agent" },
    );
    return async (event) => {
      const answer = await handle(event);
      waitUntil(processor.forceFlush());
      return answer;
    };
  }
  throw new Error(`unknown subject ${subject}`);
}

const handler = await init();
const answer = await handler({ question: "What is the weather like in Lisbon right now, and do I need an umbrella?" });
process.stdout.write(`answer ${JSON.stringify(answer)}\n`);
await Promise.all(pending);
process.stdout.write("delivered\n");
