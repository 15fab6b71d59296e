import OpenAI from "openai";
import type { Browser, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { startFakeOpenAI } from "../../src/fakes/index.js";
import { flush, observe, shutdown, TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { wrapOpenAI } from "../../src/integrations/openai/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { available, launch, shot } from "./browser.js";

let dev: DevServer;
let browser: Browser;
const post = (path: string, body: unknown) =>
  fetch(dev.url + path, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey }, body: JSON.stringify(body) });

beforeAll(async () => {
  if (!available) return;
  dev = await startDevServer({ port: 0, judge: ({ metric }) => ({ score: metric.name === "Bias" ? 0.7 : 0.9, reason: `toy reason for ${metric.name}` }) });
  browser = await launch();
});
afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await shutdown(0);
  await dev?.close();
});

describe.skipIf(!available)("the trace viewer in headless Chromium", () => {
  it("list, live updates by server-sent events, trace view, span panel, thread, keyboard and deep links", async () => {
    const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(dev.url);
    await page.getByText("No traces yet").waitFor();
    await post("/v1/metric-collections", { name: "answers", multiTurn: false, metricSettings: [{ metric: { name: "Answer Relevancy" } }, { metric: { name: "Bias" } }] });
    await post("/v1/metric-collections", { name: "conversation", multiTurn: true, metricSettings: [{ metric: { name: "Turn Relevancy" } }] });

    // Ingest through the SDK while the page is open: rows must arrive by push.
    configureForTest(dev.url, dev.projectKey);
    const retrieve = observe({ type: "retriever", name: "search-docs", embedder: "e" }, async (q: string) => [`doc about ${q}`]);
    const generate = observe({ type: "llm", name: "generate", model: "gpt-4o-mini", metricCollection: "answers" }, async (q: string) => {
      const messages = [
        { role: "system", content: `You are a support bot.\n${"Be concise. ".repeat(80)}` },
        { role: "user", content: q },
      ];
      updateCurrentSpan({ input: messages, inputTokenCount: 1200, outputTokenCount: 300, llmTestCase: { input: q, actualOutput: `answer to ${q}` } });
      return `answer to ${q}`;
    });
    const broken = observe({ type: "tool", name: "lookup-order" }, async () => {
      throw new Error("order service down");
    });
    const agent = observe({ type: "agent", name: "support-agent" }, async (q: string) => {
      updateCurrentTrace({ threadId: "conv-1", userId: "user-with-a-rather-long-identifier-42", tags: ["beta"], input: q });
      await retrieve(q);
      // A failed tool call the agent survives: the turn is marked errored but still answers.
      if (q === "refunds") await broken().catch(() => undefined);
      const out = await generate(q);
      updateCurrentTrace({ output: out });
      return out;
    });
    await agent("shipping");
    await agent("refunds");
    expect((await flush()).ok).toBe(true);
    await post("/v1/evaluate/threads/conv-1", { metricCollection: "conversation" });

    const rows = page.locator("#traces tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    const first = await rows.first().textContent();
    expect(first).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}/); // start time
    expect(first).toContain("1,200 / 300");
    expect(first).toContain("$0.00036"); // gpt-4o-mini list price: 1200 * 0.15e-6 + 300 * 0.6e-6
    expect(first).toContain("ERRORED");
    expect(first).toContain("user-with-a-rather-long-identifier-42");
    expect(requests.filter((p) => p === "/_dev/version")).toEqual([]); // no polling
    expect(requests.filter((p) => p === "/_dev/events")).toHaveLength(1);
    await shot(page, "01-trace-list");

    // Search and filters run on the server and are part of the deep link.
    await page.fill("#f-q", "shipping");
    await page.press("#f-q", "Enter");
    await expect.poll(() => rows.count()).toBe(1);
    expect(page.url()).toContain("q=shipping");
    await page.goto(`${dev.url}/#/traces?status=ERRORED`);
    await expect.poll(() => page.locator("#traces tbody tr").textContent(), { timeout: 15_000 }).toContain("ERRORED");
    expect(await page.locator("#traces tbody tr").count()).toBe(1);
    await shot(page, "02-trace-list-filtered");

    // Keyboard: j moves, enter opens, esc goes back.
    await page.goto(`${dev.url}/#/traces`);
    await expect.poll(() => rows.count()).toBe(2);
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    const waterfall = page.locator("#waterfall .row");
    await expect.poll(() => waterfall.count()).toBe(4);
    const shown = await waterfall.evaluateAll((els) =>
      els.map((e) => ({ name: e.querySelector(".label")?.textContent, depth: e.getAttribute("data-depth"), errored: e.getAttribute("data-errored") })),
    );
    expect(shown).toEqual([
      { name: "agentsupport-agent", depth: "0", errored: "false" },
      { name: "retrieversearch-docs", depth: "1", errored: "false" },
      { name: "toollookup-order!", depth: "1", errored: "true" },
      { name: "llmgenerate", depth: "1", errored: "false" },
    ]);
    expect(await page.locator("#trace-totals").textContent()).toContain("1,200 / 300");

    // The span panel: a conversation, folded long text, evaluation badges with reasons.
    await waterfall.nth(3).click();
    const panel = page.locator("#span-panel");
    await expect.poll(() => panel.locator(".msg").count(), { timeout: 15_000 }).toBe(2);
    expect(await panel.locator(".msg").first().getAttribute("data-role")).toBe("system");
    expect(await panel.locator(".long.folded").count()).toBeGreaterThan(0);
    const heightFolded = await panel.locator("#span-input").evaluate((e) => e.getBoundingClientRect().height);
    expect(heightFolded).toBeLessThan(400);
    await expect.poll(() => panel.locator(".badge").count(), { timeout: 15_000 }).toBe(2);
    expect(await panel.locator('.badge[data-metric="Answer Relevancy"]').textContent()).toContain("toy reason for Answer Relevancy");
    expect(await panel.locator('.badge[data-metric="Bias"]').getAttribute("class")).toContain("fail");
    expect(page.url()).toMatch(/#\/traces\/[^/]+\/[^/]+$/); // the span is in the deep link
    await shot(page, "03-trace-view-llm-span");
    await waterfall.nth(2).click();
    await expect.poll(() => page.locator("#span-error").textContent(), { timeout: 15_000 }).toContain("order service down");
    await shot(page, "04-trace-view-errored-span");
    // A deep link opens the same span after a reload.
    await page.reload();
    await expect.poll(() => page.locator("#span-error").textContent(), { timeout: 15_000 }).toContain("order service down");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#span-panel").count(), { timeout: 15_000 }).toBe(0);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.url()).toMatch(/#\/traces$/);

    // The thread: turns linked, the errored turn shown with its error, thread evaluation badges.
    // Opened by a hash change: a list re-render still in flight is ignored (render generations).
    await page.goto(`${dev.url}/#/threads/conv-1`);
    await expect.poll(() => page.locator("#conversation .bubble").count(), { timeout: 15_000 }).toBe(4);
    expect(await page.locator("#conversation .bubble.failed").textContent()).toContain("order service down");
    expect(await page.locator("#conversation a.turn-link").count()).toBe(2);
    expect(await page.locator("#thread-evals .badge").textContent()).toContain("Turn Relevancy");
    await shot(page, "05-thread");
    await page.goto(`${dev.url}/#/threads`);
    await expect.poll(() => page.locator("#threads tbody tr").count(), { timeout: 15_000 }).toBe(1);
    await shot(page, "06-thread-list");
    await page.close();
  });

  it("every link the CLI and client print resolves: prompts (branches, diffs), datasets (versions), test runs, metrics", async () => {
    const teamDev = dev;
    await post("/v2/prompts", { alias: "greeter", text: "You are {name}.\nBe brief." });
    await post("/v2/prompts", { alias: "greeter", text: "You are {name}.\nBe kind and brief." });
    await post("/v2/prompts", { alias: "greeter", branch: "experiment", messages: [{ role: "system", content: "Hi {name}" }] });
    const pushed = (await (await post("/v2/datasets", { alias: "faq", goldens: [{ input: "Where?", expectedOutput: "Here" }, { input: "When?" }] })).json()) as { link: string };
    await post("/v1/evaluate", { metricCollection: "answers", identifier: "nightly", testCases: [{ input: "q", actualOutput: "a" }] });
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });

    await page.goto(pushed.link);
    await expect.poll(() => page.locator("#goldens tbody tr").count(), { timeout: 15_000 }).toBe(2);
    await shot(page, "07-dataset");
    await page.goto(`${teamDev.url}/#/prompts/greeter`);
    await expect.poll(() => page.locator("#commits [data-commit]").count(), { timeout: 15_000 }).toBe(2);
    expect(await page.locator("#commits .diff .add").first().textContent()).toBe("+ Be kind and brief.");
    await shot(page, "08-prompt-diff");
    await page.goto(`${teamDev.url}/#/prompts/greeter?branch=experiment`);
    await expect.poll(() => page.locator("#commits [data-commit]").count(), { timeout: 15_000 }).toBe(3);
    await page.goto(`${teamDev.url}/#/test-runs`);
    await page.locator("#test-runs tbody tr").first().click();
    await expect.poll(() => page.locator("#cases .badge").count(), { timeout: 15_000 }).toBe(2);
    await shot(page, "09-test-run");
    await page.goto(`${teamDev.url}/#/metrics`);
    await expect.poll(() => page.locator("#collections tbody tr").count(), { timeout: 15_000 }).toBe(2);
    await shot(page, "10-metrics");
    for (const view of ["prompts", "datasets"]) {
      await page.goto(`${teamDev.url}/#/${view}`);
      await expect.poll(() => page.locator(`#${view} tbody tr`).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    }
    await page.close();
  });

  it("a streamed llm span shows its time to first token and tokens per second", async () => {
    const fake = await startFakeOpenAI();
    configureForTest(dev.url, dev.projectKey);
    const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 }));
    let metadata: Record<string, unknown> = {};
    await observe({ type: "agent", name: "streaming-agent" }, async () => {
      const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] }, { headers: { "x-fake-stream-delay-ms": "10" } });
      for await (const _ of stream);
    })();
    expect((await flush()).ok).toBe(true);
    await fake.close();
    const trace = Object.values(dev.state.traces).find((t) => t.spans.some((x) => x.name === "streaming-agent"))!;
    const llm = trace.spans.find((x) => x.type === "llm")!;
    metadata = llm.metadata as Record<string, unknown>;
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${dev.url}/#/traces/${trace.uuid}/${llm.uuid}`);
    const timings = page.locator("#span-timings");
    await expect.poll(() => timings.count(), { timeout: 15_000 }).toBe(1);
    const text = await timings.textContent();
    expect(text).toContain("time to first token");
    expect(text).toContain("tokens / second");
    // The numbers shown are the span's own (TTFT as a duration, the rate rounded).
    const ttft = metadata[TIME_TO_FIRST_TOKEN_KEY] as number;
    const tps = metadata[TOKENS_PER_SECOND_KEY] as number;
    expect(text).toContain(ttft < 10 ? `${ttft.toFixed(1)} ms` : ttft < 1000 ? `${ttft.toFixed(0)} ms` : `${(ttft / 1000).toFixed(2)} s`);
    expect(text).toContain(tps.toFixed(tps < 10 ? 1 : 0));
    await shot(page, "14-llm-span-stream-timings");
    // Spans without timings (the agent) have no such box.
    await page.locator('#waterfall .row[data-type="agent"]').click();
    await expect.poll(() => page.locator("#span-panel h2").textContent(), { timeout: 15_000 }).toContain("streaming-agent");
    expect(await page.locator("#span-timings").count()).toBe(0);
    await page.close();
  });

  it("a view opened while a live update's re-render is still in flight stays on screen (render generations)", async () => {
    configureForTest(dev.url, dev.projectKey);
    const turn = observe({ type: "agent", name: "race-turn" }, async (q: string) => {
      updateCurrentTrace({ threadId: "conv-race", input: q, output: `answer to ${q}` });
      return `answer to ${q}`;
    });
    await turn("first");
    expect((await flush()).ok).toBe(true);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${dev.url}/#/traces`);
    await expect.poll(() => page.locator("#traces tbody tr").count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // Hold the list's re-reads: the live update's re-render stays in flight.
    const held: Route[] = [];
    await page.route(
      (url) => url.pathname === "/_dev/view/traces",
      (route) => {
        held.push(route);
      },
    );
    await turn("second");
    expect((await flush()).ok).toBe(true);
    await expect.poll(() => held.length, { timeout: 15_000 }).toBeGreaterThan(0);
    // Navigate by hash (no reload) while it is pending, then let it finish.
    await page.evaluate('location.hash = "#/threads/conv-race"');
    await expect.poll(() => page.locator("#conversation .bubble").count(), { timeout: 15_000 }).toBe(4);
    for (const route of held) await route.continue();
    // The stale read came back and was ignored: the thread is still what the page shows.
    await expect.poll(() => page.evaluate("window.V.staleReads"), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await page.locator("#traces").count()).toBe(0);
    expect(await page.locator("#conversation .bubble").count()).toBe(4);
    await shot(page, "15-thread-after-stale-list-render");
    await page.close();
  });
});
