import { spawn } from "node:child_process";
import type OpenAI from "openai";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { DevServer } from "../../src/devserver/index.js";
import type { StoredSpan } from "../../src/devserver/store/store.js";
import type { FakeOpenAI } from "../../src/fakes/index.js";
import { currentTraceUuid, flush, observe, stats } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import type { Finished } from "../helpers/child.js";

// The SDK's helper methods (issue 31): `chat.completions.parse/.stream/.runTools` and
// `responses.parse/.stream`, text and tool calls, on each major the tests install (openai 6 and
// openai 7). Each call is one llm span that ends when the call does: with its output, the token
// counts the fake server reported, its tool calls; nothing force-ended, nothing reported.

/** What a file gives the suite: its emulator, fake server, logger lines and the package's client class. */
export interface HelperSuiteContext {
  dev: DevServer;
  fake: FakeOpenAI;
  logger: { lines: string[] };
  OpenAI: new (options: Record<string, unknown>) => OpenAI;
}

const orderSchema = { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"], additionalProperties: false };
const answerSchema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };
const chatTool = { type: "function" as const, function: { name: "lookup_order", description: "Finds an order", parameters: orderSchema, strict: true } };
const responsesTool = { type: "function" as const, name: "lookup_order", description: "Finds an order", parameters: orderSchema, strict: true };
const lookupCall = [{ name: "lookup_order", inputParameters: { orderId: "A-1001" } }];
const TEXT = "Orders ship in 2 days.";

type Usage = { prompt_tokens?: number; completion_tokens?: number; input_tokens?: number; output_tokens?: number } | null | undefined;
const tokensOf = (u: Usage) => ({ inputTokenCount: u?.prompt_tokens ?? u?.input_tokens, outputTokenCount: u?.completion_tokens ?? u?.output_tokens });

/**
 * Registers the helper-method tests: `ctx()` gives the file's context (made in its `beforeAll`).
 * Every test checks that no trace was force-ended and that nothing went to the logger or stderr.
 */
export function helperMethodTests(ctx: () => HelperSuiteContext): void {
  let client: OpenAI;
  let forcedBefore = 0;
  let openBefore = 0;
  let stderr: string[] = [];
  beforeEach(() => {
    const { OpenAI: Client, fake, logger } = ctx();
    client = wrapOpenAI(new Client({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    forcedBefore = stats().tracesForceEnded;
    openBefore = stats().openTraces;
    logger.lines.length = 0;
    stderr = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      stderr.push(String(chunk));
      return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Runs `fn` in a root span; the trace's llm spans, in start order, once nothing is left open. */
  async function llmSpans(fn: () => Promise<unknown>): Promise<StoredSpan[]> {
    let uuid = "";
    await observe({ type: "agent", name: "agent" }, async () => {
      uuid = currentTraceUuid()!;
      await fn();
    })();
    expect((await flush()).ok).toBe(true);
    expect(stats().tracesForceEnded - forcedBefore, "traces force-ended").toBe(0);
    expect(stats().openTraces, "traces still held open").toBe(openBefore);
    expect(ctx().logger.lines, "logger").toEqual([]);
    expect(stderr, "stderr").toEqual([]);
    const trace = ctx().dev.state.traces[uuid];
    expect(trace, "the trace was sent").toBeDefined();
    const spans = trace!.spans.filter((s) => s.type === "llm").sort((a, b) => a.startTime.localeCompare(b.startTime));
    for (const s of spans) expect(s, "an llm span that ended by itself").toMatchObject({ status: "SUCCESS", endTime: expect.any(String) });
    expect(JSON.stringify(trace!.fields.metadata ?? {})).not.toContain("unfinished");
    return spans;
  }

  it("chat.completions.parse(): one span with the JSON output and the usage", async () => {
    let usage: Usage;
    let content = "";
    const spans = await llmSpans(async () => {
      const r = await client.chat.completions.parse({ model: "gpt-4o-mini", messages: [{ role: "user", content: "When?" }], response_format: { type: "json_schema", json_schema: { name: "a", schema: answerSchema, strict: true } } });
      expect(r.choices[0]!.message.parsed).toEqual({ answer: expect.any(String) });
      usage = r.usage;
      content = r.choices[0]!.message.content!;
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: "openai.chat.completions", input: [{ role: "user", content: "When?" }], output: content, ...tokensOf(usage) });
    expect(spans[0]!.inputTokenCount).toBe(11);
  });

  it("chat.completions.parse() with a strict tool: toolsCalled", async () => {
    let usage: Usage;
    const spans = await llmSpans(async () => {
      const r = await client.chat.completions.parse({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Where is A-1001?" }], tools: [chatTool] });
      expect(r.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: "lookup_order", parsed_arguments: { orderId: "A-1001" } } });
      usage = r.usage;
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ toolsCalled: lookupCall, ...tokensOf(usage), inputTokenCount: 20, outputTokenCount: 7 });
    expect(spans[0]!.output).toContain("lookup_order");
  });

  it("chat.completions.stream(): text, read with finalChatCompletion() and by iteration", async () => {
    const usages: Usage[] = [];
    const spans = await llmSpans(async () => {
      const stream = client.chat.completions.stream({ model: "gpt-4o-mini", stream_options: { include_usage: true }, messages: [{ role: "user", content: "stream it" }] });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.content).toBe(TEXT);
      usages.push(final.usage);
      const again = client.chat.completions.stream({ model: "gpt-4o-mini", stream_options: { include_usage: true }, messages: [{ role: "user", content: "iterate it" }] });
      let text = "";
      for await (const chunk of again) text += chunk.choices[0]?.delta?.content ?? "";
      expect(text).toBe(TEXT);
      usages.push((await again.finalChatCompletion()).usage);
    });
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({ input: [{ role: "user", content: "stream it" }], output: TEXT, ...tokensOf(usages[0]), inputTokenCount: 11, outputTokenCount: 4 });
    expect(spans[1]).toMatchObject({ input: [{ role: "user", content: "iterate it" }], output: TEXT, ...tokensOf(usages[1]), inputTokenCount: 11, outputTokenCount: 4 });
  });

  it("chat.completions.stream(): a streamed tool call", async () => {
    let usage: Usage;
    const spans = await llmSpans(async () => {
      const stream = client.chat.completions.stream({ model: "gpt-4o-mini", stream_options: { include_usage: true }, tools: [chatTool], messages: [{ role: "user", content: "Where is A-1001?" }] });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: "lookup_order" } });
      usage = final.usage;
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ toolsCalled: lookupCall, ...tokensOf(usage), inputTokenCount: 20, outputTokenCount: 7 });
  });

  it("chat.completions.runTools(), plain and streamed: one span per model call", async () => {
    const tools = [{ type: "function" as const, function: { name: "lookup_order", description: "Finds an order", parameters: orderSchema, function: (a: { orderId: string }) => `order ${a.orderId} shipped`, parse: JSON.parse } }];
    const spans = await llmSpans(async () => {
      const runner = client.chat.completions.runTools({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Where is A-1001?" }], tools });
      expect(await runner.finalContent()).toBe(TEXT);
      const streamed = client.chat.completions.runTools({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Where is A-1001?" }], tools });
      expect(await streamed.finalContent()).toBe(TEXT);
    });
    expect(spans).toHaveLength(4);
    for (const i of [0, 2]) expect(spans[i]).toMatchObject({ toolsCalled: lookupCall });
    for (const i of [1, 3]) expect(spans[i]).toMatchObject({ output: TEXT });
    expect(spans[3]).toMatchObject({ inputTokenCount: 11, outputTokenCount: 4 });
    expect((spans[1]!.input as { role: string }[]).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("responses.parse(): one span with the JSON output and the usage", async () => {
    let usage: Usage;
    let text = "";
    const spans = await llmSpans(async () => {
      const r = await client.responses.parse({ model: "gpt-4.1-mini", input: "When?", text: { format: { type: "json_schema", name: "a", schema: answerSchema, strict: true } } });
      expect(r.output_parsed).toEqual({ answer: expect.any(String) });
      usage = r.usage;
      text = r.output_text;
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: "openai.responses", input: [{ role: "user", content: "When?" }], output: text, ...tokensOf(usage), inputTokenCount: 9 });
  });

  it("responses.stream(): text, read with finalResponse() and by iteration", async () => {
    const usages: Usage[] = [];
    const spans = await llmSpans(async () => {
      const stream = client.responses.stream({ model: "gpt-4.1-mini", input: "stream it" });
      const final = await stream.finalResponse();
      expect(final.output_text).toBe(TEXT);
      usages.push(final.usage);
      const again = client.responses.stream({ model: "gpt-4.1-mini", input: "iterate it" });
      let text = "";
      for await (const event of again) if (event.type === "response.output_text.delta") text += event.delta;
      expect(text).toBe(TEXT);
      usages.push((await again.finalResponse()).usage);
    });
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({ name: "openai.responses", input: [{ role: "user", content: "stream it" }], output: TEXT, ...tokensOf(usages[0]), inputTokenCount: 9, outputTokenCount: 4 });
    expect(spans[1]).toMatchObject({ input: [{ role: "user", content: "iterate it" }], output: TEXT, ...tokensOf(usages[1]), inputTokenCount: 9, outputTokenCount: 4 });
  });

  it("responses.stream(): a streamed tool call", async () => {
    let usage: Usage;
    const spans = await llmSpans(async () => {
      const stream = client.responses.stream({ model: "gpt-4.1-mini", input: "Where is A-1001?", tools: [responsesTool] });
      const final = await stream.finalResponse();
      expect(final.output[0]).toMatchObject({ type: "function_call", name: "lookup_order" });
      usage = final.usage;
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: "openai.responses", toolsCalled: lookupCall, ...tokensOf(usage), inputTokenCount: 20, outputTokenCount: 7 });
    expect(spans[0]!.output).toContain("lookup_order");
  });
}

/** Where a zero-code app runs: its directory (where `openai` and `evaltrace` resolve) and Node flags. */
export interface ZeroCodeContext {
  dev: DevServer;
  fake: FakeOpenAI;
  cwd: string;
  /** Node flags before the preload (`--preserve-symlinks` when `openai` is a link to another major). */
  flags?: string[];
}

/** An app with no evaltrace in its code but `flush`/`stats` at the end: the helper methods, each marked with `marker`. */
const zeroCodeApp = (format: "esm" | "cjs") => `
${format === "esm" ? 'import OpenAI from "openai"; import { flush, stats } from "evaltrace";' : 'const OpenAI = require("openai"); const { flush, stats } = require("evaltrace");'}
const M = process.env.MARKER;
const client = new OpenAI({ apiKey: "sk-test", baseURL: process.env.FAKE_OPENAI, maxRetries: 0 });
const answer = ${JSON.stringify(answerSchema)};
const tool = ${JSON.stringify(responsesTool)};
const usage = {};
usage.chatParse = (await client.chat.completions.parse({ model: "gpt-4o-mini", messages: [{ role: "user", content: M + " chat.parse" }], response_format: { type: "json_schema", json_schema: { name: "a", schema: answer, strict: true } } })).usage;
usage.chatStream = (await client.chat.completions.stream({ model: "gpt-4o-mini", stream_options: { include_usage: true }, messages: [{ role: "user", content: M + " chat.stream" }] }).finalChatCompletion()).usage;
usage.responsesParse = (await client.responses.parse({ model: "gpt-4.1-mini", input: M + " responses.parse", text: { format: { type: "json_schema", name: "a", schema: answer, strict: true } } })).usage;
usage.responsesStream = (await client.responses.stream({ model: "gpt-4.1-mini", input: M + " responses.stream" }).finalResponse()).usage;
usage.responsesTool = (await client.responses.stream({ model: "gpt-4.1-mini", input: M + " responses.tool", tools: [tool] }).finalResponse()).usage;
await flush();
const s = stats();
console.log(JSON.stringify({ usage, forced: s.tracesForceEnded, open: s.openTraces }));
`;

function runZeroCodeApp(z: ZeroCodeContext, format: "esm" | "cjs", marker: string): Promise<Finished> {
  const source = zeroCodeApp(format);
  const body = format === "esm" ? source : `(async () => {\n${source}\n})().catch((e) => { console.error(e); process.exitCode = 99; });`;
  const preload = format === "esm" ? ["--import", "evaltrace/auto"] : ["-r", "evaltrace/auto"];
  const args = [...(z.flags ?? []), ...preload, ...(format === "esm" ? ["--input-type=module"] : []), "-e", body];
  const env = { PATH: process.env.PATH ?? "", EVALTRACE_API_KEY: z.dev.projectKey, EVALTRACE_BASE_URL: z.dev.url, FAKE_OPENAI: z.fake.url, MARKER: marker };
  const child = spawn(process.execPath, args, { cwd: z.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/**
 * Registers the zero-code test of the helper methods (children load dist/: build first with
 * `npx tsup`): each call one llm span of its own trace, ended by the call, as with `wrapOpenAI`.
 */
export function zeroCodeHelperTests(label: string, ctx: () => ZeroCodeContext): void {
  it.each(["cjs", "esm"] as const)(`zero-code (%s, ${label}): parse() and stream() are one ended llm span each, nothing force-ended or logged`, async (format) => {
    const z = ctx();
    const marker = `helpers-${label}-${format}`;
    const f = await runZeroCodeApp(z, format, marker);
    expect(f.stderr, "stderr").toBe("");
    expect(f.code, f.stderr).toBe(0);
    const printed = JSON.parse(f.stdout) as { usage: Record<string, Usage>; forced: number; open: number };
    expect(printed).toMatchObject({ forced: 0, open: 0 });
    const spans = Object.values(z.dev.state.traces)
      .flatMap((t) => t.spans)
      .filter((s) => s.type === "llm" && JSON.stringify(s.input ?? "").includes(marker));
    const byCall = (call: string) => spans.filter((s) => JSON.stringify(s.input).includes(`${marker} ${call}`));
    for (const [call, key] of [
      ["chat.parse", "chatParse"],
      ["chat.stream", "chatStream"],
      ["responses.parse", "responsesParse"],
      ["responses.stream", "responsesStream"],
      ["responses.tool", "responsesTool"],
    ] as const) {
      const found = byCall(call);
      expect(found, call).toHaveLength(1);
      expect(found[0], call).toMatchObject({ status: "SUCCESS", output: expect.stringMatching(/./), ...tokensOf(printed.usage[key]) });
      expect(found[0]!.metadata ?? {}, call).not.toHaveProperty(["evaltrace.unfinished"]);
    }
    expect(byCall("chat.stream")[0]).toMatchObject({ output: TEXT, inputTokenCount: 11, outputTokenCount: 4 });
    expect(byCall("responses.stream")[0]).toMatchObject({ output: TEXT, inputTokenCount: 9, outputTokenCount: 4 });
    expect(byCall("responses.tool")[0]).toMatchObject({ toolsCalled: lookupCall, inputTokenCount: 20, outputTokenCount: 7 });
    expect(spans).toHaveLength(5);
  });
}
