import { createRequire } from "node:module";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { type DevServer, startDevServer } from "../../../src/devserver/index.js";
import { startFakeOpenAI } from "../../../src/fakes/index.js";
import type { StoredSpan, StoredTrace } from "../../../src/devserver/store/store.js";
import { EvaltraceSpanProcessor, observe, shutdown, stats } from "../../../src/index.js";
import { configureForTest } from "../../helpers/sdk.js";

/** CommonJS `require`, as an app that loads its SDKs after registering instrumentations. */
export const requireCjs = createRequire(import.meta.url);

/**
 * What an app with OpenTelemetry has: its own global provider with its own exporter, and our
 * span processor added beside it; plus the emulator and a fake OpenAI server.
 */
export async function startBridge(options: { maxTraceDurationMillis?: number } = {}) {
  const dev: DevServer = await startDevServer({ port: 0 });
  const fake = await startFakeOpenAI();
  const appExporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter), new EvaltraceSpanProcessor()] });
  trace.setGlobalTracerProvider(provider);
  // Short, so that spans an instrumentation never ends are closed within the test (a test whose
  // scenario runs longer than that on a loaded machine passes a longer one).
  configureForTest(dev.url, dev.projectKey, { maxTraceDurationMillis: options.maxTraceDurationMillis ?? 300 });
  return {
    dev,
    fake,
    provider,
    appExporter,
    async close() {
      await shutdown(0);
      await fake.close();
      await dev.close();
    },
  };
}

/**
 * The stored spans of a trace as an indented outline `type name`, children in start order. Some
 * instrumentations stamp starts in whole milliseconds (LangChain's run.start_time), so two
 * siblings that ran one after the other can share a start: then the one that ended first ran first.
 */
export function outline(t: StoredTrace): string[] {
  const lines: string[] = [];
  const byStartThenEnd = (a: StoredSpan, b: StoredSpan) => String(a.startTime).localeCompare(String(b.startTime)) || String(a.endTime).localeCompare(String(b.endTime));
  const children = (parent: string | undefined) => t.spans.filter((s) => (s.parentUuid ?? undefined) === parent).sort(byStartThenEnd);
  const walk = (s: StoredSpan, depth: number) => {
    lines.push(`${"  ".repeat(depth)}${s.type} ${s.name}`);
    for (const c of children(s.uuid)) walk(c, depth + 1);
  };
  for (const root of children(undefined)) walk(root, 0);
  return lines;
}

/** The one trace whose root is named `name`. */
export function traceNamed(dev: DevServer, name: string): StoredTrace {
  const found = Object.values(dev.state.traces).filter((t) => t.spans.some((s) => s.name === name && !s.parentUuid));
  if (found.length !== 1) throw new Error(`${found.length} traces rooted at ${name}: ${Object.values(dev.state.traces).map((t) => outline(t).join(" / ")).join(" | ")}`);
  return found[0]!;
}

/** Nothing held open or unsent once flushed. */
export function nothingLeftOpen(): boolean {
  return stats().openTraces === 0;
}

/** The tool the scenario offers the model. */
export const lookupTool = {
  type: "function" as const,
  function: { name: "lookup_order", description: "Finds an order", parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] } },
};

type ChatClient = {
  chat: {
    completions: {
      // biome-ignore lint/suspicious/noExplicitAny: the real SDK's overloads, called as an app does
      create(body: any): Promise<any>;
    };
  };
};

/**
 * What an app does with the OpenAI SDK inside an observe() agent: a chat with a system prompt,
 * a stream with usage, a tool call round trip, and a call the service refuses (400).
 */
export async function openAiScenario(client: ChatClient, name: string): Promise<void> {
  const agent = observe({ type: "agent", name }, async (q: string) => {
    await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "You are a support bot." },
        { role: "user", content: q },
      ],
    });
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "and returns?" }] });
    for await (const _ of stream) {
      // consumed by the app
    }
    const messages: unknown[] = [{ role: "user", content: "Where is order A-1001? use lookup_order" }];
    const call = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools: [lookupTool] });
    const toolCall = call.choices[0].message.tool_calls[0];
    messages.push(call.choices[0].message, { role: "tool", tool_call_id: toolCall.id, content: "order A-1001 shipped" });
    await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools: [lookupTool] });
    await client.chat.completions.create({ model: "error-400", messages: [{ role: "user", content: "x" }] }).catch(() => undefined);
  });
  await agent("When do orders ship?");
}

/** The llm spans of a trace in start order. */
export function llmSpans(t: StoredTrace): StoredSpan[] {
  return t.spans.filter((s) => s.type === "llm").sort((a, b) => a.startTime.localeCompare(b.startTime));
}
