import { expect, it } from "vitest";
import type { DevServer } from "../../src/devserver/index.js";
import type { StoredSpan, StoredTrace } from "../../src/devserver/store/store.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { deliver, flush } from "../../src/index.js";

// The issue-31 scenarios of the Vercel AI SDK, run by one major of the real `ai` package (the
// suite of each major calls `aiSdkScenarios`), against the fake OpenAI server and the emulator.

// biome-ignore lint/suspicious/noExplicitAny: the real package, called as an app does (its types differ by major)
export type Ai = any;

export interface AiSdkRun {
  /** The `ai` package as the app sees it (with evaltrace's zero-code hook applied). */
  ai: Ai;
  /** A chat model of `@ai-sdk/openai` on the fake server. */
  chat(): unknown;
  /** An embedding model of `@ai-sdk/openai` on the fake server. */
  embedding(): unknown;
  /** zod, for tool schemas. */
  z: Ai;
  dev: DevServer;
}

/** The one stored trace with a span whose input or output holds `marker`. */
function traceWith(dev: DevServer, marker: string): StoredTrace | undefined {
  const found = Object.values(dev.state.traces).filter((t) => t.spans.some((s) => JSON.stringify([s.input, s.output]).includes(marker)));
  if (found.length > 1) throw new Error(`${found.length} traces hold ${marker}`);
  return found[0];
}

/** Waits (flushing) until the trace holding `marker` is stored; returns it. */
async function storedTrace(dev: DevServer, marker: string): Promise<StoredTrace> {
  await expect
    .poll(async () => {
      await flush();
      return traceWith(dev, marker) !== undefined;
    })
    .toBe(true);
  return traceWith(dev, marker)!;
}

const rootOf = (t: StoredTrace): StoredSpan => t.spans.find((s) => !s.parentUuid)!;
const llmSpans = (t: StoredTrace): StoredSpan[] => t.spans.filter((s) => s.type === "llm").sort((a, b) => String(a.startTime).localeCompare(String(b.startTime)));
const unfinished = (t: StoredTrace): string[] => t.spans.filter((s) => (s.metadata as Record<string, unknown> | undefined)?.["evaltrace.unfinished"]).map((s) => String(s.name));

/** Reads a text stream until `stop` says so (after that many pieces); what it read, and what it threw. */
async function readUntil(stream: AsyncIterable<string>, stop: (pieces: number) => boolean): Promise<{ read: string; threw: unknown }> {
  let read = "";
  let pieces = 0;
  try {
    for await (const piece of stream) {
      read += piece;
      if (stop(++pieces)) break;
    }
  } catch (err) {
    return { read, threw: err };
  }
  return { read, threw: undefined };
}

export function aiSdkScenarios(run: () => AiSdkRun): void {
  it("tool results in the next model call's input are the tools' values (an object as its JSON, a string as it is), not the SDK's {type, value} wrappers", async () => {
    const { ai, z, dev } = run();
    const marker = "tool-values";
    const result = await ai.generateText({
      model: run().chat(),
      prompt: `Where is order A-1001? use lookup_order and order_note (${marker})`,
      tools: {
        lookup_order: ai.tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }: { orderId: string }) => ({ orderId, status: "shipped" }) }),
        order_note: ai.tool({ description: "An order's note", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }: { orderId: string }) => `note for ${orderId}` }),
      },
      stopWhen: ai.stepCountIs(3),
    });
    expect(result.text).toBe(FAKE_REPLY);
    const t = await storedTrace(dev, marker);
    const [first, second] = llmSpans(t);
    expect(first).toBeDefined();
    // The step's results, as the SDK sends them: in one tool message.
    const tools = (second!.input as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toContain(JSON.stringify({ orderId: "A-1001", status: "shipped" }));
    expect(tools[0]).toContain("note for A-1001");
    expect(tools[0]).not.toMatch(/"type":"(json|text)"|"value":/);
  });

  it("a streamText read to its end: SUCCESS with the whole reply, nothing left open", async () => {
    const { ai, dev } = run();
    const marker = "read-whole";
    const result = ai.streamText({ model: run().chat(), prompt: `When? (${marker})` });
    const { read } = await readUntil(result.textStream, () => false);
    expect(read).toBe(FAKE_REPLY);
    const t = await storedTrace(dev, marker);
    expect(t.spans.every((s) => s.status === "SUCCESS")).toBe(true);
    expect(llmSpans(t).map((s) => s.output)).toEqual([FAKE_REPLY]);
    expect(unfinished(t)).toEqual([]);
  });

  it.each([
    ["with a reason", () => new Error("user closed the tab"), "user closed the tab"],
    ["without a reason", () => undefined, "aborted"],
  ])("a streamText aborted by its AbortController (%s) is ERRORED with the abort reason and the text streamed before it, nothing left unfinished", async (_, reason, said) => {
    const { ai, dev } = run();
    const marker = `aborted-${said.length}`;
    const abort = new AbortController();
    const result = ai.streamText({ model: run().chat(), prompt: `When? (${marker})`, abortSignal: abort.signal, headers: { "x-fake-stream-delay-ms": "40" } });
    const { read } = await readUntil(result.textStream, (pieces) => {
      if (pieces === 2) abort.abort(reason());
      return false;
    });
    expect(read.length).toBeGreaterThan(0);
    expect(read).not.toBe(FAKE_REPLY);
    const t = await storedTrace(dev, marker);
    const root = rootOf(t);
    expect(root.status).toBe("ERRORED");
    expect(root.error).toContain(said);
    const [llm] = llmSpans(t);
    expect(llm).toMatchObject({ status: "ERRORED", error: expect.stringContaining(said) });
    // The text streamed before the abort: what the app read, perhaps a piece more (the SDK reads ahead), never the whole reply.
    expect(typeof llm!.output).toBe("string");
    expect(String(llm!.output).startsWith(read)).toBe(true);
    expect(FAKE_REPLY.startsWith(String(llm!.output))).toBe(true);
    expect(llm!.output).not.toBe(FAKE_REPLY);
    expect(unfinished(t)).toEqual([]);
  });

  it("a break out of the textStream loop: the call is ERRORED as cut short by the app (not a plain SUCCESS), sent without waiting for maxTraceDurationMillis", async () => {
    const { ai, dev } = run();
    const marker = "broke-off";
    const result = ai.streamText({ model: run().chat(), prompt: `When? (${marker})`, headers: { "x-fake-stream-delay-ms": "30" } });
    const { read } = await readUntil(result.textStream, (pieces) => pieces === 1);
    expect(read).not.toBe(FAKE_REPLY);
    const t = await storedTrace(dev, marker);
    const root = rootOf(t);
    expect(root).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/cut short/) });
    // Each model call is either cut short with what it had streamed, or (the SDK read it all ahead) whole.
    for (const llm of llmSpans(t)) {
      if (llm.status === "SUCCESS") expect(llm.output).toBe(FAKE_REPLY);
      else {
        expect(llm.error).toMatch(/cut short/);
        expect(String(llm.output ?? "").startsWith(read)).toBe(true);
      }
    }
    expect(unfinished(t)).toEqual([]);
  });

  it("a streamText nobody reads does not keep its trace open past deliver(): sent ERRORED, never read", async () => {
    const { ai, dev } = run();
    const marker = "never-read";
    ai.streamText({ model: run().chat(), prompt: `When? (${marker})` });
    await deliver(undefined, 1000);
    const t = traceWith(dev, marker);
    expect(t, "stored by deliver()").toBeDefined();
    expect(rootOf(t!)).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/never read/) });
    expect(unfinished(t!)).toEqual([]);
  });

  it("deliver() called before the app reads the stream (a handler returning the streaming response) waits for the reading: SUCCESS with the whole reply", async () => {
    const { ai, dev } = run();
    const marker = "read-after-deliver";
    const result = ai.streamText({ model: run().chat(), prompt: `When? (${marker})`, headers: { "x-fake-stream-delay-ms": "20" } });
    const delivered = deliver(undefined, 4000);
    // The platform starts reading the response a moment later.
    await new Promise((r) => setTimeout(r, 50));
    expect((await readUntil(result.textStream, () => false)).read).toBe(FAKE_REPLY);
    await delivered;
    const t = traceWith(dev, marker);
    expect(t, "stored by deliver()").toBeDefined();
    expect(t!.spans.every((s) => s.status === "SUCCESS")).toBe(true);
    expect(llmSpans(t!).map((s) => s.output)).toEqual([FAKE_REPLY]);
    expect(unfinished(t!)).toEqual([]);
  });

  it("a tee()d textStream: one branch read to its end is a SUCCESS with the whole reply; with no branch read, deliver() sends it cut short", async () => {
    const { ai, dev } = run();
    const result = ai.streamText({ model: run().chat(), prompt: "When? (teed-read)" });
    const [a] = result.textStream.tee();
    expect((await readUntil(a, () => false)).read).toBe(FAKE_REPLY);
    await deliver(undefined, 1000);
    const read = traceWith(dev, "teed-read");
    expect(read, "stored by deliver()").toBeDefined();
    expect(read!.spans.every((s) => s.status === "SUCCESS")).toBe(true);
    expect(llmSpans(read!).map((s) => s.output)).toEqual([FAKE_REPLY]);

    const unread = ai.streamText({ model: run().chat(), prompt: "When? (teed-unread)" });
    unread.textStream.tee();
    await deliver(undefined, 1000);
    const t = traceWith(dev, "teed-unread");
    expect(t, "stored by deliver()").toBeDefined();
    expect(rootOf(t!)).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/not read to its end/) });
    expect(unfinished(t!)).toEqual([]);
  });

  it("the app's own onChunk and onAbort callbacks still run, with the SDK's events", async () => {
    const { ai } = run();
    const chunks: string[] = [];
    let aborted = 0;
    const abort = new AbortController();
    const result = ai.streamText({
      model: run().chat(),
      prompt: "When? (own-callbacks)",
      abortSignal: abort.signal,
      headers: { "x-fake-stream-delay-ms": "30" },
      onChunk: ({ chunk }: { chunk: { type: string } }) => {
        chunks.push(chunk.type);
      },
      onAbort: () => {
        aborted++;
      },
    });
    await readUntil(result.textStream, (pieces) => {
      if (pieces === 2) abort.abort();
      return false;
    });
    expect(chunks).toContain("text-delta");
    expect(aborted).toBe(1);
  });

  it("a ToolLoopAgent's generate (model calls made inside the package, past its exports): one agent span named by its id, with its model calls as llm spans and its tool call under it", async () => {
    const { ai, dev, z } = run();
    const marker = "agent-generate";
    const lookup_order = ai.tool({ description: "Finds an order", inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }: { orderId: string }) => ({ orderId, status: "shipped" }) });
    const agent = new ai.ToolLoopAgent({ id: "support", model: run().chat(), tools: { lookup_order } });
    const result = await agent.generate({ prompt: `Where is order A-1001? use lookup_order (${marker})` });
    expect(result.text).toBe(FAKE_REPLY);
    const t = await storedTrace(dev, marker);
    expect(rootOf(t)).toMatchObject({ type: "agent", name: "support", status: "SUCCESS", output: FAKE_REPLY, availableTools: ["lookup_order"] });
    expect(llmSpans(t).map((s) => s.status)).toEqual(["SUCCESS", "SUCCESS"]);
    expect(t.spans.filter((s) => s.type === "tool").map((s) => s.name)).toEqual(["lookup_order"]);
    expect(unfinished(t)).toEqual([]);
  });

  it("a ToolLoopAgent's stream aborted by its AbortController: the agent span and its model call are ERRORED (aborted) with the text streamed before it, nothing left unfinished", async () => {
    const { ai, dev } = run();
    const marker = "agent-aborted";
    const agent = new ai.ToolLoopAgent({ id: "support", model: run().chat(), headers: { "x-fake-stream-delay-ms": "40" } });
    const abort = new AbortController();
    const result = await agent.stream({ prompt: `When? (${marker})`, abortSignal: abort.signal });
    const { read } = await readUntil(result.textStream, (pieces) => {
      if (pieces === 2) abort.abort();
      return false;
    });
    const t = await storedTrace(dev, marker);
    const root = rootOf(t);
    expect(root).toMatchObject({ type: "agent", name: "support", status: "ERRORED", error: expect.stringContaining("aborted") });
    expect(String(root.output).startsWith(read)).toBe(true);
    expect(root.output).not.toBe(FAKE_REPLY);
    const [llm] = llmSpans(t);
    expect(llm).toMatchObject({ status: "ERRORED", error: expect.stringContaining("aborted") });
    expect(String(llm!.output).startsWith(read)).toBe(true);
    expect(unfinished(t)).toEqual([]);
  });

  it("embed and embedMany: one llm span each, with the model and the token usage the provider reported", async () => {
    const { ai, dev } = run();
    const one = await ai.embed({ model: run().embedding(), value: "embed-one orders" });
    const many = await ai.embedMany({ model: run().embedding(), values: ["embed-many a", "embed-many b"] });
    expect(one.usage.tokens).toBeGreaterThan(0);
    await flush();
    const traces = Object.values(dev.state.traces).filter((t) => t.spans.some((s) => String(s.name).includes("embed")));
    const byTokens = (tokens: number) => traces.filter((t) => llmSpans(t).some((s) => s.inputTokenCount === tokens));
    for (const [usage, count] of [
      [one.usage.tokens, 1],
      [many.usage.tokens, 1],
    ] as const) {
      const [t] = byTokens(usage);
      expect(t, `a trace with an llm span of ${usage} input tokens`).toBeDefined();
      const llm = llmSpans(t!);
      expect(llm).toHaveLength(count);
      expect(llm[0]).toMatchObject({ model: "text-embedding-3-small", inputTokenCount: usage });
    }
  });
}
