import type OpenAI from "openai";
import { expect, it } from "vitest";
import type { DevServer } from "../../src/devserver/index.js";
import type { FakeOpenAI } from "../../src/fakes/index.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { deliver, observe } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { llmSpans, readUntil, storedTrace, traceWith, unfinished } from "./stream-scenarios.js";

// The stream edge cases of issue 31 on one major of the real `openai` package (each major's file
// calls `openaiStreamTests`): streams nobody reads, tee()d streams, a `break`, an abort by the
// stream's controller or by the request's signal, through create({stream: true}) and the
// helpers chat.completions.stream() and responses.stream(). The app's side is checked too.

/** What a file gives the suite: its emulator, fake server and the package's client class. */
export interface StreamSuiteContext {
  dev: DevServer;
  fake: FakeOpenAI;
  OpenAI: new (options: Record<string, unknown>) => OpenAI;
}

type Chunk = { choices?: { delta?: { content?: string | null } }[] };
type Event = { type: string; delta?: unknown };
const text = (chunks: unknown[]) => (chunks as Chunk[]).map((c) => c.choices?.[0]?.delta?.content ?? "").join("");
const eventText = (events: unknown[]) => (events as Event[]).map((e) => (e.type === "response.output_text.delta" && typeof e.delta === "string" ? e.delta : "")).join("");
const slow = { headers: { "x-fake-stream-delay-ms": "20" } };

/** Registers the tests; `ctx()` gives the file's context (made in its `beforeAll`). */
export function openaiStreamTests(major: string, ctx: () => StreamSuiteContext): void {
  // Markers name the major: both suites share one emulator.
  const m = (marker: string) => `${major}-${marker}`;
  const client = () => wrapOpenAI(new (ctx().OpenAI)({ apiKey: "sk-test", baseURL: ctx().fake.url, maxRetries: 0 }));
  const chat = (marker: string) => ({ model: "gpt-4o-mini", stream: true as const, messages: [{ role: "user" as const, content: `When? (${marker})` }] });

  it("a chat stream nobody reads does not keep its trace open past deliver(): sent ERRORED, never read", async () => {
    await client().chat.completions.create(chat(m("oa-never-read")));
    await deliver(undefined, 1000);
    const t = traceWith(ctx().dev, m("oa-never-read"));
    expect(t, "stored by deliver()").toBeDefined();
    expect(llmSpans(t!)).toMatchObject([{ status: "ERRORED", error: expect.stringMatching(/never read/) }]);
    expect(unfinished(t!)).toEqual([]);
  });

  it("a tee()d chat stream with both branches read: one llm span, SUCCESS with the whole reply, each branch the whole stream", async () => {
    const stream = await client().chat.completions.create(chat(m("oa-tee-both")));
    const [a, b] = stream.tee();
    const [ra, rb] = await Promise.all([readUntil(a, () => false), readUntil(b, () => false)]);
    expect([text(ra.items), text(rb.items)]).toEqual([FAKE_REPLY, FAKE_REPLY]);
    const t = await storedTrace(ctx().dev, m("oa-tee-both"));
    expect(llmSpans(t)).toMatchObject([{ status: "SUCCESS", output: FAKE_REPLY }]);
  });

  it("a tee()d chat stream with no branch read: deliver() sends it ERRORED, never read", async () => {
    const stream = await client().chat.completions.create(chat(m("oa-tee-none")));
    stream.tee();
    await deliver(undefined, 1000);
    const t = traceWith(ctx().dev, m("oa-tee-none"));
    expect(t, "stored by deliver()").toBeDefined();
    expect(llmSpans(t!)).toMatchObject([{ status: "ERRORED", error: expect.stringMatching(/never read/) }]);
    expect(unfinished(t!)).toEqual([]);
  });

  it("a tee()d chat stream with one branch left by a break and the other never read: deliver() sends it ERRORED, not read to its end, with the text so far", async () => {
    const stream = await client().chat.completions.create(chat(m("oa-tee-partly")), slow);
    const [a] = stream.tee();
    const { items } = await readUntil(a, (n) => n === 2);
    await deliver(undefined, 1000);
    const t = traceWith(ctx().dev, m("oa-tee-partly"));
    expect(t, "stored by deliver()").toBeDefined();
    expect(llmSpans(t!)).toMatchObject([{ status: "ERRORED", error: "stream cut short: not read to its end by the app" }]);
    expect(String(llmSpans(t!)[0]!.output ?? "")).toBe(text(items));
    expect(unfinished(t!)).toEqual([]);
  });

  it("a break out of a chat stream's loop: ERRORED as cut short by the app (not SUCCESS), with the text read so far", async () => {
    const stream = await client().chat.completions.create(chat(m("oa-break")), slow);
    const { items } = await readUntil(stream, (n) => n === 3);
    const read = text(items);
    expect(read).not.toBe(FAKE_REPLY);
    const t = await storedTrace(ctx().dev, m("oa-break"));
    const [llm] = llmSpans(t);
    expect(llm).toMatchObject({ status: "ERRORED", error: "stream cut short: the app stopped reading before its end" });
    expect(String(llm!.output ?? "")).toBe(read);
  });

  it("a chat stream aborted by its controller, or by the request's signal with a reason: ERRORED 'aborted: <reason>' with the text so far; the app's loop ends as without tracing", async () => {
    const byController = await client().chat.completions.create(chat(m("oa-abort-controller")), slow);
    const first = await readUntil(byController, (n) => {
      if (n === 2) byController.controller.abort();
      return false;
    });
    expect(first.threw).toBeUndefined();
    const signal = new AbortController();
    const bySignal = await client().chat.completions.create(chat(m("oa-abort-signal")), { ...slow, signal: signal.signal });
    const second = await readUntil(bySignal, (n) => {
      if (n === 2) signal.abort(new Error("user closed the tab"));
      return false;
    });
    const [c] = llmSpans(await storedTrace(ctx().dev, m("oa-abort-controller")));
    expect(c).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/^aborted: /) });
    expect(String(c!.output ?? "")).toBe(text(first.items));
    const [s] = llmSpans(await storedTrace(ctx().dev, m("oa-abort-signal")));
    expect(s).toMatchObject({ status: "ERRORED", error: "aborted: user closed the tab" });
    expect(FAKE_REPLY.startsWith(String(s!.output ?? ""))).toBe(true);
    expect(second.items.length).toBeLessThan(8);
  });

  it("a break out of chat.completions.stream()'s loop (the helper aborts its request): ERRORED as aborted, not SUCCESS", async () => {
    const runner = client().chat.completions.stream(chat(m("oa-helper-break")), slow);
    await readUntil(runner, (n) => n === 2);
    const [llm] = llmSpans(await storedTrace(ctx().dev, m("oa-helper-break")));
    expect(llm).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/^aborted/) });
  });

  it("chat.completions.stream() nobody reads: the helper reads it, SUCCESS, nothing left open at deliver()", async () => {
    client().chat.completions.stream(chat(m("oa-helper-unread")));
    await deliver(undefined, 2000);
    const t = traceWith(ctx().dev, m("oa-helper-unread"));
    expect(t, "stored by deliver()").toBeDefined();
    expect(llmSpans(t!)).toMatchObject([{ status: "SUCCESS", output: FAKE_REPLY }]);
    expect(unfinished(t!)).toEqual([]);
  });

  it("a Responses stream: nobody reads it (ERRORED at deliver()), a break (cut short with the text so far), responses.stream() left by a break (not SUCCESS)", async () => {
    const params = (marker: string) => ({ model: "gpt-4o-mini", stream: true as const, input: `When? (${marker})` });
    await client().responses.create(params(m("oa-resp-never")));
    const broken = await client().responses.create(params(m("oa-resp-break")), slow);
    const { items } = await readUntil(broken as AsyncIterable<unknown>, (_n, e) => (e as Event).type === "response.output_text.delta" && eventText([e]) !== "" && true);
    const helper = client().responses.stream({ model: "gpt-4o-mini", input: `When? (${m("oa-resp-helper")})` }, slow);
    await readUntil(helper as AsyncIterable<unknown>, (n) => n === 3);
    await deliver(undefined, 1000);
    const never = traceWith(ctx().dev, m("oa-resp-never"));
    expect(never, "stored by deliver()").toBeDefined();
    expect(llmSpans(never!)).toMatchObject([{ status: "ERRORED", error: expect.stringMatching(/never read/) }]);
    const [b] = llmSpans(await storedTrace(ctx().dev, m("oa-resp-break")));
    expect(b).toMatchObject({ status: "ERRORED", error: "stream cut short: the app stopped reading before its end", output: eventText(items) });
    const [h] = llmSpans(await storedTrace(ctx().dev, m("oa-resp-helper")));
    expect(h!.status).toBe("ERRORED");
  });

  it("the app's stream is the SDK's own: its own keys and symbols as without the wrapper, and reading it yields the same chunks", async () => {
    const raw = new (ctx().OpenAI)({ apiKey: "sk-test", baseURL: ctx().fake.url, maxRetries: 0 });
    const plain = await raw.chat.completions.create(chat(m("oa-same-raw")));
    const wrapped = await client().chat.completions.create(chat(m("oa-same")));
    expect(Object.keys(wrapped)).toEqual(Object.keys(plain));
    expect(Object.getOwnPropertySymbols(wrapped)).toEqual(Object.getOwnPropertySymbols(plain));
    const strip = (chunks: unknown[]) => (chunks as { id?: string; created?: number }[]).map((c) => ({ ...c, id: "", created: 0 }));
    expect(strip((await readUntil(wrapped, () => false)).items)).toEqual(strip((await readUntil(plain, () => false)).items));
  });

  it("a stream read to its end inside observe() is still one SUCCESS span with the whole reply", async () => {
    await observe({ name: m("oa-agent") }, async () => {
      const stream = await client().chat.completions.create(chat(m("oa-whole")));
      expect(text((await readUntil(stream, () => false)).items)).toBe(FAKE_REPLY);
    })();
    const [llm] = llmSpans(await storedTrace(ctx().dev, m("oa-whole")));
    expect(llm).toMatchObject({ status: "SUCCESS", output: FAKE_REPLY });
  });
}
