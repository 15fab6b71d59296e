import { describe, expect, it } from "vitest";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { runsHere } from "../helpers/skips.js";
import { zeroCodeRig } from "../helpers/zero-code-rig.js";

// Issue 43, in a child process with the real openai SDK under zero-code: the app's own framework
// telemetry (a provider with EvaltraceSpanProcessor) records a chat span around the request but
// never makes it active (as TanStack AI and Strands do), so zero-code's span of the request is a
// trace of its own; the model-call fold keeps the request once, as the framework's span. ESM ends
// with shutdown(), CommonJS by running dry (the exit hook's drain sends what is held).
// Children load dist/: build first with `npx tsup`.
const onBun = !runsHere(!("Bun" in globalThis), "test/auto/model-call-fold.test.ts", "zero-code needs Node's module hooks, which Bun does not have");

const rig = zeroCodeRig();
const { runApp, tracesOf } = rig;

const load = (format: "esm" | "cjs") =>
  format === "esm"
    ? 'import OpenAI from "openai"; import { trace, ROOT_CONTEXT } from "@opentelemetry/api"; import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base"; import { EvaltraceSpanProcessor, shutdown, stats } from "evaltrace";'
    : 'const OpenAI = require("openai"); const { trace, ROOT_CONTEXT } = require("@opentelemetry/api"); const { BasicTracerProvider } = require("@opentelemetry/sdk-trace-base"); const { EvaltraceSpanProcessor, stats } = require("evaltrace");';

const app = (format: "esm" | "cjs", marker: string) => `${load(format)}
const tracer = new BasicTracerProvider({ spanProcessors: [new EvaltraceSpanProcessor()] }).getTracer("framework");
const client = new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI });
${format === "cjs" ? "(async () => {" : ""}
const agent = tracer.startSpan("invoke_agent fold-${format}", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "fold-${format}" } });
const chat = tracer.startSpan("chat gpt-4o-mini", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini" } }, trace.setSpan(ROOT_CONTEXT, agent));
const reply = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "${marker}" }] });
chat.setAttributes({ "gen_ai.usage.input_tokens": reply.usage.prompt_tokens, "gen_ai.usage.output_tokens": reply.usage.completion_tokens });
chat.end();
agent.end();
console.log(reply.choices[0].message.content);
${format === "esm" ? "await shutdown();\nif (stats().modelCallsFolded !== 1) console.error('modelCallsFolded', stats().modelCallsFolded);" : "})();"}`;

describe.skipIf(onBun)("zero-code and the app's framework telemetry both record a request of the real openai SDK", () => {
  it.each(["esm", "cjs"] as const)("%s: one trace, the framework's llm span with our input, output and tokens; zero-code's own trace of the request folded; stdout is the reply alone", async (format) => {
    const marker = `fold-marker-${format}`;
    const f = await runApp(format, app(format, marker));
    expect(f.stderr, f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(f.stdout).toBe(`${FAKE_REPLY}\n`);
    const traces = Object.values(rig.dev.state.traces).filter((t) => t.spans.some((s) => s.name === `fold-${format}`));
    expect(traces).toHaveLength(1);
    const spans = traces[0]!.spans;
    expect(spans.map((s) => `${s.type} ${s.name}`).sort()).toEqual([`agent fold-${format}`, "llm chat gpt-4o-mini"]);
    const llm = spans.find((s) => s.type === "llm")!;
    expect(llm.inputTokenCount).toBeGreaterThan(0);
    expect(llm).toMatchObject({ output: FAKE_REPLY, input: [{ role: "user", content: marker }] });
    // zero-code's span of the request (named by the SDK call) is in no trace of its own.
    expect(tracesOf(marker).filter((t) => !t.some((s) => s.name === `fold-${format}`))).toEqual([]);
  });
});
