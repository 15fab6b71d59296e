import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { flush, observe, shutdown, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const artifacts = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
// CI installs Chromium (.ci/run); there a missing browser is a failure, not a skip.
const available = existsSync(CHROMIUM) || process.env.CI === "true";

let dev: DevServer;
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  dev = await startDevServer({ port: 0 });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await shutdown(0);
  await dev?.close();
});

describe.skipIf(!available)("the trace viewer in headless Chromium", () => {
  it("lists ingested traces and shows the waterfall with the right spans in the right nesting", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    await page.goto(dev.url);
    await page.getByText("No traces yet").waitFor();

    // Ingest a demo trace through the SDK while the page is open: it must show up by itself.
    configureForTest(dev.url, dev.projectKey);
    const retrieve = observe({ type: "retriever", name: "search-docs", embedder: "e" }, async (q: string) => [`doc about ${q}`]);
    const generate = observe({ type: "llm", name: "generate", model: "gpt-4o-mini" }, async (q: string) => {
      updateCurrentSpan({ inputTokenCount: 12, outputTokenCount: 5 });
      return `answer to ${q}`;
    });
    const broken = observe({ type: "tool", name: "lookup-order" }, async () => {
      throw new Error("order service down");
    });
    const agent = observe({ type: "agent", name: "support-agent" }, async (q: string) => {
      updateCurrentTrace({ threadId: "conv-1", userId: "u-1" });
      await retrieve(q);
      await broken().catch(() => undefined);
      return generate(q);
    });
    await agent("shipping");
    await agent("refunds");
    expect((await flush()).ok).toBe(true);

    const rows = page.locator("tr.trace");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => page.locator("#traces").textContent()).toContain("conv-1");
    await rows.first().click();
    const waterfall = page.locator("#waterfall .row");
    await expect.poll(() => waterfall.count()).toBe(4);
    const shown = await waterfall.evaluateAll((els) =>
      els.map((e) => ({ name: e.querySelector(".label")?.textContent, depth: e.getAttribute("data-depth"), type: e.getAttribute("data-type"), errored: e.getAttribute("data-errored") })),
    );
    expect(shown).toEqual([
      { name: "agentsupport-agent", depth: "0", type: "agent", errored: "false" },
      { name: "retrieversearch-docs", depth: "1", type: "retriever", errored: "false" },
      { name: "toollookup-order!", depth: "1", type: "tool", errored: "true" },
      { name: "llmgenerate", depth: "1", type: "llm", errored: "false" },
    ]);
    // Bars are laid out by time: each child starts at or after its parent, in call order.
    const lefts = await page.locator("#waterfall .bar").evaluateAll((els) => els.map((e) => Number.parseFloat((e as unknown as { style: { left: string } }).style.left)));
    expect(lefts[0]).toBe(0);
    expect(lefts[1]!).toBeLessThanOrEqual(lefts[2]!);
    expect(lefts[2]!).toBeLessThanOrEqual(lefts[3]!);

    // The span panel shows a span's fields.
    await waterfall.nth(3).click();
    await expect.poll(() => page.locator("#span-panel").textContent()).toContain("gpt-4o-mini");
    expect(await page.locator("#span-panel").textContent()).toContain("inputTokenCount");

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}viewer-waterfall.png`, fullPage: true });

    // The thread as a conversation.
    await page.goto(`${dev.url}/#/threads/conv-1`);
    await expect.poll(() => page.locator("#conversation .bubble").count()).toBe(4);
    expect(await page.locator("#conversation").textContent()).toContain("answer to shipping");
    await page.screenshot({ path: `${artifacts}viewer-thread.png` });
    await page.close();
  });
});
