import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeAnthropic } from "../../src/fakes/index.js";
import { FAKE_REPLY } from "../../src/fakes/model.js";
import { deliver, shutdown } from "../../src/index.js";
import { wrapAnthropic } from "../../src/integrations/anthropic.js";
import { packageRoot } from "../helpers/child.js";
import { configureForTest } from "../helpers/sdk.js";
import { llmSpans, readUntil, storedTrace, traceWith, unfinished } from "./stream-scenarios.js";

// Issue 31 on @anthropic-ai/sdk 1 and on the major before it, 0.137 (the devDependency alias
// anthropic-sdk-v0): streams nobody reads, tee()d streams, a break, an abort by the
// stream's controller (keeping the usage of message_start) or by the request's signal, through
// messages.create({stream: true}) and messages.stream(); and the ids linking a tool use to its
// result in the next call's input.

let dev: DevServer;
let fake: Awaited<ReturnType<typeof startFakeAnthropic>>;
beforeAll(async () => {
  dev = await startDevServer({ port: 0 });
  fake = await startFakeAnthropic();
  configureForTest(dev.url, dev.projectKey);
});
afterAll(async () => {
  await shutdown(0);
  await fake.close();
  await dev.close();
});

type Client = InstanceType<typeof Anthropic>;
type Event = { type: string; delta?: { type?: string; text?: string } };
const text = (events: unknown[]) => (events as Event[]).map((e) => (e.type === "content_block_delta" && e.delta?.type === "text_delta" ? (e.delta.text ?? "") : "")).join("");
const slow = { headers: { "x-fake-stream-delay-ms": "20" } };
const tools = [{ name: "lookup_order", description: "Finds an order", input_schema: { type: "object" as const, properties: { orderId: { type: "string" } }, required: ["orderId"] } }];

const majors: [string, () => new (o: Record<string, unknown>) => Client][] = [
  ["@anthropic-ai/sdk 1", () => Anthropic as unknown as new (o: Record<string, unknown>) => Client],
  ["@anthropic-ai/sdk 0", () => createRequire(import.meta.url)("anthropic-sdk-v0").default],
];

describe.each(majors)("wrapAnthropic with %s: stream edge cases and tool-use ids (issue 31)", (label, Sdk) => {
  const client = () => wrapAnthropic(new (Sdk())({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 }));
  const m = (marker: string) => `${label.replace(/\W+/g, "")}-${marker}`;
  const params = (marker: string) => ({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true as const, messages: [{ role: "user" as const, content: `When? (${m(marker)})` }] });

  it("the package is the major named", () => {
    const dir = label.endsWith("1") ? "node_modules/@anthropic-ai/sdk" : "node_modules/anthropic-sdk-v0";
    const { version } = JSON.parse(readFileSync(join(packageRoot, dir, "package.json"), "utf8")) as { version: string };
    expect(version.startsWith(label.endsWith("1") ? "1." : "0.")).toBe(true);
  });

  it("a tool use's id is the assistant message's tool_calls[].id and the tool result's tool_call_id in the next call's input (one tool message per result)", async () => {
    const c = client();
    const first = await c.messages.create({ model: "claude-sonnet-4-6", max_tokens: 100, tools, messages: [{ role: "user", content: `Where is my order? (${m("ids")})` }] });
    const use = first.content.find((b) => b.type === "tool_use")!;
    expect(use.id).toBeTruthy();
    await c.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 100,
      tools,
      messages: [
        { role: "user", content: `Where is my order? (${m("ids")})` },
        { role: "assistant", content: [...first.content, { ...use, id: "toolu_second", input: { orderId: "B-2" } }] as never },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: use.id, content: "order A-1001 shipped" },
            { type: "tool_result", tool_use_id: "toolu_second", content: "order B-2 packed" },
          ],
        },
      ],
    });
    await deliver(undefined, 1000);
    const second = Object.values(dev.state.traces)
      .flatMap((t) => t.spans)
      .find((s) => s.type === "llm" && JSON.stringify(s.input).includes(m("ids")) && JSON.stringify(s.input).includes("order B-2 packed"));
    expect(second?.input).toEqual([
      { role: "user", content: `Where is my order? (${m("ids")})` },
      {
        role: "assistant",
        content: 'lookup_order({"orderId":"A-1001"})\nlookup_order({"orderId":"B-2"})',
        tool_calls: [
          { id: use.id, name: "lookup_order", arguments: { orderId: "A-1001" } },
          { id: "toolu_second", name: "lookup_order", arguments: { orderId: "B-2" } },
        ],
      },
      { role: "tool", content: "order A-1001 shipped", tool_call_id: use.id },
      { role: "tool", content: "order B-2 packed", tool_call_id: "toolu_second" },
    ]);
  });

  it("the app's stream is the SDK's own: its own keys and symbols as without the wrapper", async () => {
    const plain = await new (Sdk())({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0 }).messages.create(params("same-raw"));
    const wrapped = await client().messages.create(params("same"));
    expect(Object.keys(wrapped)).toEqual(Object.keys(plain));
    expect(Object.getOwnPropertySymbols(wrapped)).toEqual(Object.getOwnPropertySymbols(plain));
    expect(text((await readUntil(wrapped, () => false)).items)).toBe(text((await readUntil(plain, () => false)).items));
  });

  it("a stream nobody reads does not keep its trace open past deliver(): sent ERRORED, never read", async () => {
    await client().messages.create(params("never-read"));
    await deliver(undefined, 1000);
    const t = traceWith(dev, m("never-read"));
    expect(t, "stored by deliver()").toBeDefined();
    expect(llmSpans(t!)).toMatchObject([{ status: "ERRORED", error: expect.stringMatching(/never read/) }]);
    expect(unfinished(t!)).toEqual([]);
  });

  it("a tee()d stream: both branches read is one SUCCESS span with the whole reply; no branch read is sent ERRORED (never read) by deliver()", async () => {
    const both = await client().messages.create(params("tee-both"));
    const [a, b] = both.tee();
    const [ra, rb] = await Promise.all([readUntil(a, () => false), readUntil(b, () => false)]);
    expect([text(ra.items), text(rb.items)]).toEqual([FAKE_REPLY, FAKE_REPLY]);
    const unread = await client().messages.create(params("tee-none"));
    unread.tee();
    await deliver(undefined, 1000);
    expect(llmSpans(traceWith(dev, m("tee-both"))!)).toMatchObject([{ status: "SUCCESS", output: FAKE_REPLY }]);
    const none = traceWith(dev, m("tee-none"));
    expect(none, "stored by deliver()").toBeDefined();
    expect(llmSpans(none!)).toMatchObject([{ status: "ERRORED", error: expect.stringMatching(/never read/) }]);
    expect(unfinished(none!)).toEqual([]);
  });

  it("a break out of the loop: ERRORED as cut short by the app, with the text read so far and the usage of message_start", async () => {
    const stream = await client().messages.create(params("break"), slow);
    const { items } = await readUntil(stream, (_n, e) => (e as Event).type === "content_block_delta");
    const [llm] = llmSpans(await storedTrace(dev, m("break")));
    expect(llm).toMatchObject({ status: "ERRORED", error: "stream cut short: the app stopped reading before its end", model: "claude-sonnet-4-6", inputTokenCount: expect.any(Number) });
    expect(llm!.output).toBe(text(items));
  });

  it("a stream aborted from outside its loop (stream.controller.abort()) after message_start keeps the usage it reported; by the request's signal it says the reason; the app's loop ends as without tracing", async () => {
    const stream = await client().messages.create(params("abort-controller"), slow);
    const first = await readUntil(stream, (n) => {
      if (n === 3) stream.controller.abort();
      return false;
    });
    expect(first.threw).toBeUndefined();
    const signal = new AbortController();
    const bySignal = await client().messages.create(params("abort-signal"), { ...slow, signal: signal.signal });
    await readUntil(bySignal, (n) => {
      if (n === 3) signal.abort(new Error("user closed the tab"));
      return false;
    });
    const [c] = llmSpans(await storedTrace(dev, m("abort-controller")));
    expect(c).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/^aborted: /), inputTokenCount: expect.any(Number), outputTokenCount: expect.any(Number) });
    expect(String(c!.output ?? "")).toBe(text(first.items));
    const [s] = llmSpans(await storedTrace(dev, m("abort-signal")));
    expect(s).toMatchObject({ status: "ERRORED", error: "aborted: user closed the tab", inputTokenCount: expect.any(Number) });
  });

  it("messages.stream(): left by a break it is ERRORED as aborted (the helper aborts its request), with message_start's usage; nobody reading it, the helper reads it: SUCCESS at deliver()", async () => {
    const helper = client().messages.stream({ ...params("helper-break"), stream: undefined } as never, slow);
    await readUntil(helper as AsyncIterable<unknown>, (n) => n === 3);
    client().messages.stream({ ...params("helper-unread"), stream: undefined } as never);
    await deliver(undefined, 2000);
    const [b] = llmSpans(await storedTrace(dev, m("helper-break")));
    expect(b).toMatchObject({ status: "ERRORED", error: expect.stringMatching(/^aborted/), inputTokenCount: expect.any(Number) });
    const unread = traceWith(dev, m("helper-unread"));
    expect(unread, "stored by deliver()").toBeDefined();
    expect(llmSpans(unread!)).toMatchObject([{ status: "SUCCESS", output: FAKE_REPLY }]);
    expect(unfinished(unread!)).toEqual([]);
  });
});
