import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/fakes/index.js";
import { Client, flush, runExperiment, shutdown } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";
import { available, launch, shot } from "./browser.js";

let dev: DevServer;
let fake: FakeOpenAI;
let browser: Browser;
const post = (path: string, body: unknown) =>
  fetch(dev.url + path, { method: "POST", headers: { "content-type": "application/json", SERVICE_API_KEY: dev.projectKey }, body: JSON.stringify(body) });

beforeAll(async () => {
  if (!available) return;
  // The judge endpoint (the fake OpenAI server) scores the number the actual output names.
  fake = await startFakeOpenAI({
    reply: (r) => {
      const prompt = String((r.body.messages as { content: string }[]).at(-1)?.content);
      const n = Number(/Actual Output:\n.*score (\d+)/.exec(prompt)?.[1] ?? 5);
      return JSON.stringify({ score: n, reason: n >= 6 ? "answers the question" : "misses the point" });
    },
  });
  dev = await startDevServer({ port: 0, strict: true, judgeUrl: fake.url, judgeModel: "judge" });
  browser = await launch();
});
afterAll(async () => {
  if (!available) return;
  await browser?.close();
  await dev?.close();
  await fake?.close();
});

describe.skipIf(!available)("the viewer's test run comparison in headless Chromium", () => {
  it("a test case of a run made by runExperiment links to its own trace (issue 48)", async () => {
    configureForTest(dev.url, dev.projectKey);
    const client = new Client({ apiKey: dev.projectKey, baseUrl: dev.url });
    await post("/v1/metric-collections", { name: "linked", multiTurn: false });
    await runExperiment({ identifier: "linking-run", goldens: [{ input: "Where is my parcel?" }, { input: "Can I return it?" }], task: (g) => `answer to ${g.input}`, metricCollection: "linked", client, output: null });
    await flush();
    await client.close();
    const run = (dev.state.testRuns as { id: string; identifier?: string }[]).find((r) => r.identifier === "linking-run")!;
    const trace = Object.entries(dev.state.traces).find(([, t]) => t.fields.name === "linking-run" && t.fields.input === "Can I return it?")!;
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    await page.goto(`${dev.url}/#/test-runs/${run.id}`);
    const link = page.locator('[data-case="1"] [data-case-trace]');
    await expect.poll(() => link.getAttribute("data-trace"), { timeout: 15_000 }).toBe(trace[0]);
    await link.click();
    await expect.poll(() => page.url(), { timeout: 15_000 }).toContain(`#/traces/${trace[0]}`);
    await page.close();
    await shutdown();
  });

  it("picks two runs on the Test runs page and shows the cases matched, regressions first, with each metric's score delta", async () => {
    await post("/v1/metrics", { name: "Quality", multiTurn: false, criteria: "The answer answers the question.", evaluationParams: ["input", "actualOutput"] });
    await post("/v1/metric-collections", { name: "qa", multiTurn: false, metricSettings: [{ metric: { name: "Quality" }, threshold: 0.6 }] });
    const evaluate = async (identifier: string, cases: [string, number][]) => {
      await post("/v1/evaluate", { metricCollection: "qa", identifier, testCases: cases.map(([input, s]) => ({ input, actualOutput: `reply, score ${s}` })) });
      await dev.judged();
    };
    await evaluate("monday", [
      ["When do orders ship?", 9],
      ["Refund policy?", 8],
      ["Opening hours?", 4],
    ]);
    await evaluate("tuesday", [
      ["Opening hours?", 7],
      ["When do orders ship?", 9],
      ["Refund policy?", 3],
    ]);
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    await page.goto(`${dev.url}/#/test-runs`);
    await page.locator("#compare-picker").waitFor();
    // By default the picker offers the two newest: the older as base, the newer as head.
    await page.locator("#compare-go").click();
    await expect.poll(() => page.locator("#compare-cases tbody tr").count(), { timeout: 15_000 }).toBe(3);
    const rows = page.locator("#compare-cases tbody tr");
    expect(await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-change"), tr.getAttribute("data-key")]))).toEqual([
      ["regressed", "Refund policy?"],
      ["improved", "Opening hours?"],
      ["unchanged", "When do orders ship?"],
    ]);
    expect(await rows.first().locator('[data-metric="Quality"]').textContent()).toBe("0.80 → 0.30 (−0.50)");
    expect(await page.locator('[data-count="regressed"]').textContent()).toBe("1 regressed");
    expect(await page.locator("#compare-metrics tbody tr").first().textContent()).toContain("2/3 passed");
    await shot(page, "16-test-run-compare");
    // A run's page links to the comparison with the previous run of its collection.
    await page.goto(`${dev.url}/#/test-runs`);
    await page.locator("#test-runs tbody tr").first().click();
    await page.locator("#compare-previous").click();
    await expect.poll(() => page.locator("#compare-cases tbody tr").first().getAttribute("data-change"), { timeout: 15_000 }).toBe("regressed");
    await page.close();
  });

  it("the Test runs list shows each run's passed cases of those judged, with the share, and the mean score (issue 48)", async () => {
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    await page.goto(`${dev.url}/#/test-runs`);
    await page.locator("#test-runs tbody tr").first().waitFor();
    const rows = await page.locator("#test-runs tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    // Newest first: tuesday (0.7, 0.9, 0.3) then monday (0.9, 0.8, 0.4); threshold 0.6.
    expect(rows.slice(0, 2).map((r) => [r[0], r[3], r[4]])).toEqual([
      ["tuesday", "2/3 (67%)", "0.63"],
      ["monday", "2/3 (67%)", "0.70"],
    ]);
    await page.close();
  });
});
